package skills

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// Limits of what the tools hand the model.
const (
	maxResources     = 200       // resources listed by skill_load
	maxResourceBytes = 256 << 10 // bytes skill_read_resource reads of one file
	resourceDepth    = 4         // folder levels listed
)

// Resource is one file of a skill's folder besides SKILL.md.
type Resource struct {
	Path string `json:"path"` // relative to the skill's folder, with '/'
	Size int64  `json:"size"`
}

// Loaded is skill_load's result for the tool card.
type Loaded struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Source      Source     `json:"source"`
	Dir         string     `json:"dir"`
	Resources   []Resource `json:"resources"`
	More        bool       `json:"more,omitempty"` // more files than listed
}

// ResourceRead is skill_read_resource's result for the tool card.
type ResourceRead struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Binary bool   `json:"binary,omitempty"`
	Cut    bool   `json:"cut,omitempty"` // longer than was read
}

type loadInput struct {
	Name string `json:"name" jsonschema:"The skill's name, as <available_skills> lists it"`
}

type readInput struct {
	Name string `json:"name" jsonschema:"The skill's name"`
	Path string `json:"path" jsonschema:"The file's path inside the skill's folder, as skill_load lists it (relative, '/' between folders)"`
}

// Tools are the skills toolset's tools; their instruction is written per request.
func (s *Service) Tools() []tools.Entry {
	load := tools.Typed(tools.TypedTool[loadInput]{
		Name: tools.BuiltinName(Name, "load"),
		Description: "Read a skill: its instructions (the body of its SKILL.md) and the list of its resource files. " +
			"Call it when the task matches a skill in <available_skills>. Nothing is run: a skill's scripts run only through the sandbox tools of a task session, never by this tool.",
		ReadOnly: true, ConcurrencySafe: true, Instructions: s.Instructions, Applies: s.anyUsable,
		Run: func(ctx context.Context, in loadInput, _ func(tools.Progress)) (tools.Result, error) {
			return s.load(ctx, in.Name)
		},
	})
	read := tools.Typed(tools.TypedTool[readInput]{
		Name: tools.BuiltinName(Name, "read_resource"),
		Description: "Read one file of a skill's folder, by the path skill_load listed (text, up to 256 KiB). " +
			"It only reads: to run a skill's script, use the sandbox tools of a task session.",
		ReadOnly: true, ConcurrencySafe: true, Instructions: s.Instructions, Applies: s.anyUsable,
		Run: func(ctx context.Context, in readInput, _ func(tools.Progress)) (tools.Result, error) {
			return s.readResource(ctx, in.Name, in.Path)
		},
	})
	return []tools.Entry{load, read}
}

// anyUsable reports whether any skill can be offered: without one the toolset adds no
// tools to a request (its switches are read when the instruction is written).
func (s *Service) anyUsable(tools.Scope) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.ContainsFunc(s.skills, Skill.Usable)
}

// usable is the skill of a name that the call's conversation has on.
func (s *Service) usable(ctx context.Context, name string) (Skill, error) {
	sid := ""
	if call, ok := tools.CallFromContext(ctx); ok {
		sid = cmp.Or(call.SessionID, call.Scope.SessionID)
	}
	return s.usableIn(ctx, sid, name)
}

// usableIn is the skill of a name that conversation sid has on ("": the global switches).
func (s *Service) usableIn(ctx context.Context, sid, name string) (Skill, error) {
	sk, err := s.Get(ctx, name)
	if err != nil {
		return Skill{}, s.notFound(ctx, name, sid)
	}
	if sk.Error != "" {
		return Skill{}, apperr.New(apperr.SkillInvalid, "the skill %s cannot be used: %s", name, sk.Error).
			WithParam("name", name).WithParam("reason", sk.Error)
	}
	offered, err := s.offered(ctx, sid)
	if err != nil {
		return Skill{}, apperr.Wrap(err, apperr.Internal, "read the conversation's skills")
	}
	for _, o := range offered {
		if o.Name == name {
			return o, nil
		}
	}
	return Skill{}, apperr.New(apperr.SkillOff, "the skill %s is switched off", name).WithParam("name", name)
}

// notFound names every skill the conversation has on, so a model that guessed a name
// (or was told that some names did not fit) can find the right one.
func (s *Service) notFound(ctx context.Context, name, sid string) error {
	var names []string
	if offered, err := s.offered(ctx, sid); err == nil {
		for _, o := range offered {
			names = append(names, o.Name)
		}
	}
	list := "none"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	return apperr.New(apperr.SkillNotFound, "there is no skill named %s; the skills on here are: %s", apperr.Quote(name), list).WithParam("name", name)
}

func (s *Service) load(ctx context.Context, name string) (tools.Result, error) {
	sk, err := s.usable(ctx, name)
	if err != nil {
		return tools.Result{}, err
	}
	res, more := resources(sk.Dir)
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (%s, folder %s)\n\n%s\n", sk.Name, sk.Source, sk.Dir, sk.body)
	if len(res) > 0 {
		b.WriteString("\nResources (read one with skill_read_resource; scripts among them run only through the sandbox tools of a task session):\n")
		for _, r := range res {
			fmt.Fprintf(&b, "- %s (%d bytes)\n", r.Path, r.Size)
		}
		if more {
			fmt.Fprintf(&b, "- … more files than the %d listed\n", maxResources)
		}
	}
	disp := Loaded{Name: sk.Name, Description: sk.Description, Source: sk.Source, Dir: sk.Dir, Resources: res, More: more}
	return tools.Result{Content: b.String(), Display: mustJSON(disp)}, nil
}

// resources lists a skill's files besides SKILL.md, a few levels deep; symbolic links
// and hidden files are left out (skill_read_resource would refuse a link out anyway).
func resources(dir string) ([]Resource, bool) {
	out := []Resource{}
	more := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") || d.Type()&fs.ModeSymlink != 0 {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(rel, "/")+1 >= resourceDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == FileName || !d.Type().IsRegular() {
			return nil
		}
		if len(out) == maxResources {
			more = true
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err == nil {
			out = append(out, Resource{Path: rel, Size: info.Size()})
		}
		return nil
	})
	return out, more
}

// CleanResourcePath is a resource path made safe to open under the skill's folder, or
// why it is refused: absolute, a drive or backslash path, a ".." step, empty.
func CleanResourcePath(p string) (string, error) {
	if p == "" || strings.ContainsAny(p, "\\\x00") || path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" ||
		(len(p) > 1 && p[1] == ':') {
		return "", fmt.Errorf("%s is not a relative path", apperr.Quote(p))
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return "", fmt.Errorf("%s steps out of the folder", apperr.Quote(p))
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", fmt.Errorf("%s names no file", apperr.Quote(p))
	}
	return c, nil
}

func (s *Service) readResource(ctx context.Context, name, p string) (tools.Result, error) {
	sk, err := s.usable(ctx, name)
	if err != nil {
		return tools.Result{}, err
	}
	rel, err := CleanResourcePath(p)
	if err != nil {
		return tools.Result{}, apperr.Wrap(err, apperr.SkillResourceInvalid, "resource %s", apperr.Quote(p)).WithParam("path", p)
	}
	data, size, err := readInside(sk.Dir, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return tools.Result{}, apperr.New(apperr.SkillResourceNotFound, "the skill %s has no file %s", name, rel).WithParam("name", name).WithParam("path", rel)
		}
		return tools.Result{}, apperr.Wrap(err, apperr.SkillResourceInvalid, "resource %s", rel).WithParam("path", rel)
	}
	disp := ResourceRead{Name: name, Path: rel, Size: size, Cut: int64(len(data)) < size}
	if !utf8.Valid(data) && !(disp.Cut && utf8.Valid(trimPartialRune(data))) {
		disp.Binary = true
		return tools.Result{Content: fmt.Sprintf("%s of skill %s is a binary file of %d bytes; it is not shown as text.", rel, name, size), Display: mustJSON(disp)}, nil
	}
	text := string(trimPartialRune(data))
	if disp.Cut {
		text += fmt.Sprintf("\n\n[cut: the first %d of %d bytes]", len(data), size)
	}
	return tools.Result{Content: text, Display: mustJSON(disp)}, nil
}

// readInside reads a regular file under dir through os.Root, which refuses a path or a
// symbolic link that leads out of dir.
func readInside(dir, rel string) ([]byte, int64, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, 0, err
	}
	defer r.Close()
	f, err := r.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a file", rel)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResourceBytes))
	return data, st.Size(), err
}

// trimPartialRune drops an incomplete UTF-8 sequence a cut left at the end.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
