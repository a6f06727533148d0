package permission

import (
	"encoding/json"
	"slices"
	"strings"
)

// Targets is what a call will touch, read from its arguments: the approval dialog shows
// it and rules match on it.
type Targets struct {
	Paths    []string `json:"paths,omitempty"`
	URLs     []string `json:"urls,omitempty"`
	Commands []string `json:"commands,omitempty"`
	// Cwd is the directory the call says it runs in (cwd, workdir); relative paths and
	// redirections start there.
	Cwd string `json:"cwd,omitempty"`
	// Deep: the arguments nest deeper than Extract reads, so a path may hide below; the
	// call then counts as touching a path Cairn cannot place.
	Deep bool `json:"deep,omitempty"`
}

// Empty reports whether nothing was found.
func (t Targets) Empty() bool {
	return len(t.Paths) == 0 && len(t.URLs) == 0 && len(t.Commands) == 0 && t.Cwd == "" && !t.Deep
}

// Argument names, compared after lower-casing and dropping '_' and '-'. pathKeys always
// hold paths, and so do moveKeys (a bare folder name moved away is a path too); the
// maybePathKeys, and names ending like a path key (folder_path, target_dir), only when
// the value looks like one (they are also used for languages, people, profiles, …).
var (
	pathKeys = []string{"path", "paths", "file", "files", "filepath", "filepaths", "filename", "filenames",
		"dir", "dirs", "directory", "directories", "folder", "notebookpath", "targetpath", "targetfile",
		"sourcepath", "destinationpath", "destpath", "outputpath", "outputfile", "inputpath", "inputfile",
		"oldpath", "newpath", "root"}
	moveKeys      = []string{"source", "src", "target", "destination", "dest"}
	maybePathKeys = []string{"from", "to", "output", "input", "location"}
	pathSuffixes  = []string{"path", "paths", "file", "files", "filename", "filenames", "dir", "dirs", "directory",
		"directories", "folder", "folders"}
	cwdKeys     = []string{"cwd", "workdir", "workingdirectory", "workingdir"}
	urlKeys     = []string{"url", "urls", "uri", "uris", "href", "link", "links", "endpoint"}
	commandKeys = []string{"command", "cmd", "script", "shellcommand", "commandline", "bash"}
)

// maxExtractDepth bounds how deep nested objects are searched; deeper arguments set
// Targets.Deep.
const maxExtractDepth = 16

// Extract reads the paths, URLs and shell commands from a call's JSON arguments. Known
// argument names decide (path, file_path, url, command, cwd, …); any other string that
// starts with http:// or https:// counts as a URL.
func Extract(args json.RawMessage) Targets {
	var v any
	if len(args) == 0 || json.Unmarshal(args, &v) != nil {
		return Targets{}
	}
	var t Targets
	walkArgs(&t, "", v, 0)
	return t
}

func normKey(k string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(k))
}

func walkArgs(t *Targets, key string, v any, depth int) {
	if depth > maxExtractDepth {
		t.Deep = true
		return
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // deterministic order for the dialog and tests
		for _, k := range keys {
			walkArgs(t, normKey(k), v[k], depth+1)
		}
	case []any:
		for _, e := range v {
			walkArgs(t, key, e, depth+1)
		}
	case string:
		classify(t, key, v)
	}
}

func classify(t *Targets, key, s string) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		return
	}
	if isFileURL(trimmed) && !slices.Contains(commandKeys, key) {
		// A file:// URL names a file whatever the argument is called.
		t.Paths = appendNew(t.Paths, trimmed)
		if slices.Contains(urlKeys, key) {
			t.URLs = appendNew(t.URLs, trimmed)
		}
		return
	}
	switch {
	case slices.Contains(commandKeys, key):
		t.Commands = appendNew(t.Commands, s)
	case slices.Contains(cwdKeys, key):
		if t.Cwd == "" {
			t.Cwd = trimmed
		} else {
			t.Paths = appendNew(t.Paths, s) // a second one is at least a place it touches
		}
	case slices.Contains(urlKeys, key) || isURL(trimmed):
		if isURL(trimmed) || strings.Contains(trimmed, "://") {
			t.URLs = appendNew(t.URLs, trimmed)
		}
	case slices.Contains(pathKeys, key):
		// As sent: a tool takes " x" or "x\ny" literally (a name with a newline is still
		// a file in the folder).
		t.Paths = appendNew(t.Paths, s)
	case slices.Contains(moveKeys, key) && !strings.Contains(trimmed, "\n"),
		(slices.Contains(maybePathKeys, key) || hasPathSuffix(key)) && looksLikePath(trimmed):
		t.Paths = appendNew(t.Paths, s)
	}
}

func hasPathSuffix(key string) bool {
	return slices.ContainsFunc(pathSuffixes, func(suf string) bool { return strings.HasSuffix(key, suf) })
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && !strings.ContainsAny(s, " \n")
}

func isFileURL(s string) bool {
	return len(s) > 5 && strings.EqualFold(s[:5], "file:") && !strings.ContainsAny(s, "\n")
}

func looksLikePath(s string) bool {
	if strings.ContainsAny(s, "\n") || strings.Contains(s, "://") {
		return false
	}
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, ".") ||
		strings.Contains(s, "/") || strings.Contains(s, `\`) || (len(s) > 2 && s[1] == ':')
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
