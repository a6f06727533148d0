package sandbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-app/cairn/backend/sandbox/ops"
	"github.com/cairn-app/cairn/backend/tools"
)

// ReadInput are sandbox_read's arguments.
type ReadInput struct {
	Path   string `json:"path" jsonschema:"the file, relative to the workspace (or an absolute path inside it)"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to read, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many lines to read (default 2000)"`
}

// WriteInput are sandbox_write's arguments.
type WriteInput struct {
	Path    string `json:"path" jsonschema:"the file to create or overwrite, relative to the workspace; missing folders are made"`
	Content string `json:"content" jsonschema:"the whole new content of the file"`
}

// EditInput are sandbox_edit's arguments.
type EditInput struct {
	Path       string `json:"path" jsonschema:"the file to edit, relative to the workspace"`
	OldString  string `json:"old_string" jsonschema:"the exact text to replace, whitespace and indentation included; it must occur once unless replace_all"`
	NewString  string `json:"new_string" jsonschema:"the text that replaces it"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of exactly one"`
}

// GrepInput are sandbox_grep's arguments.
type GrepInput struct {
	Pattern    string `json:"pattern" jsonschema:"a regular expression (RE2 syntax) searched line by line"`
	Path       string `json:"path,omitempty" jsonschema:"a folder or file to search, relative to the workspace (default: all of it)"`
	Glob       string `json:"glob,omitempty" jsonschema:"only files matching this glob: *.go, **/*.{ts,tsx}; without a slash it matches file names"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"match regardless of case"`
	Context    int    `json:"context,omitempty" jsonschema:"lines of context before and after each match (at most 10)"`
	FilesOnly  bool   `json:"files_only,omitempty" jsonschema:"list only the files that match"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"stop after this many matches (default 200)"`
}

// ListInput are sandbox_ls's arguments.
type ListInput struct {
	Path string `json:"path,omitempty" jsonschema:"the folder to list, relative to the workspace (default: the workspace)"`
}

// FindInput are sandbox_find's arguments.
type FindInput struct {
	Pattern string `json:"pattern" jsonschema:"a glob matched against paths below path: **/*.go, src/*.ts, **/test_*.py"`
	Path    string `json:"path,omitempty" jsonschema:"the folder to search, relative to the workspace (default: the workspace)"`
}

func bounds(props map[string][2]float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for name, b := range props {
			if p := s.Properties[name]; p != nil {
				lo, hi := b[0], b[1]
				p.Minimum, p.Maximum = &lo, &hi
			}
		}
	}
}

func (s *Service) readTool() tools.Entry {
	return tools.Typed(tools.TypedTool[ReadInput]{
		Name: ReadTool,
		Description: "Read a file of the workspace, `cat -n` style (line numbers, then a tab, then the line). Reads 2000 lines " +
			"unless offset/limit say otherwise; longer lines are cut. Images are returned as images; PDFs and Office documents as their text.",
		SearchHint: "cat open view file contents",
		ReadOnly:   true, ConcurrencySafe: true,
		Refine:  bounds(map[string][2]float64{"offset": {0, 1e9}, "limit": {1, ops.MaxLimit}}),
		Touches: func(in ReadInput) tools.Touches { return tools.Touches{Paths: []string{in.Path}} },
		Run: func(ctx context.Context, in ReadInput, _ func(tools.Progress)) (tools.Result, error) {
			var r ops.ReadResult
			level, err := s.op(ctx, ops.OpRead, func(c ops.Common) any {
				return ops.ReadRequest{Common: c, Path: in.Path, Offset: in.Offset, Limit: in.Limit}
			}, &r)
			if err != nil {
				return refusal(level, err)
			}
			res := tools.Result{Content: readText(r), Display: display(map[string]any{
				"level": level, "path": r.Path, "kind": r.Kind, "format": r.Format, "from": r.From, "to": r.To, "lines": r.Lines, "size": r.Size,
			})}
			if r.Image != nil && len(r.Image.Data) > 0 {
				res.Images = []tools.Image{{MIMEType: r.Image.MIMEType, Data: r.Image.Data}}
			}
			return res, nil
		},
	})
}

// readText is a read as the model reads it: the lines, and what to do for more.
func readText(r ops.ReadResult) string {
	if r.Kind == "image" || r.Kind == "binary" {
		return r.Content
	}
	var b strings.Builder
	if r.Kind == "document" {
		fmt.Fprintf(&b, "%s is a %s document", r.Path, strings.ToUpper(r.Format))
		if r.Pages > 0 {
			fmt.Fprintf(&b, " of %d pages", r.Pages)
		}
		b.WriteString("; its text:\n")
	}
	switch {
	case r.Size == 0:
		return r.Path + " is empty."
	case r.Content == "":
		fmt.Fprintf(&b, "%s has %d lines; there is nothing at the offset asked for.", r.Path, r.Lines)
		return b.String()
	}
	b.WriteString(r.Content)
	if r.More {
		total := "more"
		if r.Lines > 0 {
			total = fmt.Sprintf("%d", r.Lines)
		}
		fmt.Fprintf(&b, "\n(lines %d-%d of %s; read on with offset %d)", r.From, r.To, total, r.To+1)
	}
	if r.Cut > 0 {
		fmt.Fprintf(&b, "\n(%d long lines were cut at %d characters)", r.Cut, ops.MaxLineChars)
	}
	return b.String()
}

func (s *Service) writeTool() tools.Entry {
	return tools.Typed(tools.TypedTool[WriteInput]{
		Name: WriteTool,
		Description: "Create a file in the workspace or overwrite it with new content (UTF-8). For a change to an existing " +
			"file prefer sandbox_edit. Paths such as .git/hooks and shell start-up files are protected.",
		SearchHint: "create save new file overwrite",

		Touches: func(in WriteInput) tools.Touches {
			return tools.Touches{Edits: []tools.Edit{{Path: in.Path, New: in.Content}}}
		},
		Preview: func(ctx context.Context, in WriteInput) ([]tools.Edit, error) {
			return s.preview(ctx, tools.Edit{Path: in.Path, New: in.Content}, ops.PreviewRequest{Path: in.Path, Write: true, Content: in.Content})
		},
		Run: func(ctx context.Context, in WriteInput, _ func(tools.Progress)) (tools.Result, error) {
			var r ops.WriteResult
			level, err := s.op(ctx, ops.OpWrite, func(c ops.Common) any {
				return ops.WriteRequest{Common: c, Path: in.Path, Content: in.Content}
			}, &r)
			if err != nil {
				return refusal(level, err)
			}
			verb := "Wrote"
			if r.Created {
				verb = "Created"
			}
			return tools.Result{Content: fmt.Sprintf("%s %s (%d bytes).", verb, r.Path, r.Bytes),
				Display: display(map[string]any{"level": level, "path": r.Path, "created": r.Created, "bytes": r.Bytes})}, nil
		},
	})
}

func (s *Service) editTool() tools.Entry {
	return tools.Typed(tools.TypedTool[EditInput]{
		Name: EditTool,
		Description: "Replace exact text in a file of the workspace. old_string must match the file exactly (read it first) " +
			"and occur once, unless replace_all. The file's line endings (LF/CRLF) and encoding (UTF-8, UTF-16 with BOM) are kept.",
		SearchHint: "modify change replace patch file",

		Touches: func(in EditInput) tools.Touches {
			return tools.Touches{Edits: []tools.Edit{{Path: in.Path, Old: in.OldString, New: in.NewString}}}
		},
		Preview: func(ctx context.Context, in EditInput) ([]tools.Edit, error) {
			return s.preview(ctx, tools.Edit{Path: in.Path, Old: in.OldString, New: in.NewString},
				ops.PreviewRequest{Path: in.Path, OldString: in.OldString, NewString: in.NewString, ReplaceAll: in.ReplaceAll})
		},
		Run: func(ctx context.Context, in EditInput, _ func(tools.Progress)) (tools.Result, error) {
			var r ops.EditResult
			level, err := s.op(ctx, ops.OpEdit, func(c ops.Common) any {
				return ops.EditRequest{Common: c, Path: in.Path, OldString: in.OldString, NewString: in.NewString, ReplaceAll: in.ReplaceAll}
			}, &r)
			if err != nil {
				return refusal(level, err)
			}
			return tools.Result{Content: fmt.Sprintf("Edited %s: %d replacement(s), the first at line %d.", r.Path, r.Replacements, r.Line),
				Display: display(map[string]any{"level": level, "path": r.Path, "replacements": r.Replacements, "line": r.Line, "encoding": r.Encoding, "lineEnding": r.LineEnding})}, nil
		},
	})
}

// preview reads, in the sandbox, what a write or an edit would change in its file as it
// is now: the dialog's diff, with its context. An edit that would be refused (no match)
// has no preview, and the dialog shows the call's own old and new text.
func (s *Service) preview(ctx context.Context, e tools.Edit, req ops.PreviewRequest) ([]tools.Edit, error) {
	var r ops.PreviewResult
	if _, err := s.op(ctx, ops.OpPreview, func(c ops.Common) any {
		req.Common = c
		return req
	}, &r); err != nil {
		return nil, err
	}
	e.Path, e.Diff, e.Added, e.Removed, e.Truncated, e.Created, e.Unchanged, e.Unshown = r.Path, r.Diff, r.Added, r.Removed, r.Truncated, r.Created, r.Unchanged, r.Unshown
	return []tools.Edit{e}, nil
}

func (s *Service) grepTool() tools.Entry {
	return tools.Typed(tools.TypedTool[GrepInput]{
		Name: GrepTool,
		Description: "Search the workspace's files for a regular expression: `path:line:text` for each match, context lines as " +
			"`path-line-text`. Skips binary files, .git and node_modules; capped at max_matches.",
		SearchHint: "search find text regex ripgrep",
		ReadOnly:   true, ConcurrencySafe: true,
		Refine:  bounds(map[string][2]float64{"context": {0, ops.MaxContext}, "max_matches": {1, ops.MaxMatchesLimit}}),
		Touches: func(in GrepInput) tools.Touches { return tools.Touches{Paths: []string{pathOr(in.Path)}} },
		Run: func(ctx context.Context, in GrepInput, _ func(tools.Progress)) (tools.Result, error) {
			var r ops.GrepResult
			level, err := s.op(ctx, ops.OpGrep, func(c ops.Common) any {
				return ops.GrepRequest{Common: c, Pattern: in.Pattern, Path: in.Path, Glob: in.Glob, IgnoreCase: in.IgnoreCase,
					Context: in.Context, FilesOnly: in.FilesOnly, MaxMatches: in.MaxMatches}
			}, &r)
			if err != nil {
				return refusal(level, err)
			}
			text := strings.TrimRight(r.Content, "\n")
			if r.Files == 0 {
				text = fmt.Sprintf("No matches for %q.", in.Pattern)
			}
			if r.Truncated {
				text += "\n(results were capped: narrow the pattern, the path or the glob)"
			}
			if r.Skipped > 0 {
				text += fmt.Sprintf("\n(%d files were skipped: binary, over %d MB or hard-linked)", r.Skipped, ops.MaxGrepFile>>20)
			}
			return tools.Result{Content: text, Display: display(map[string]any{"level": level, "matches": r.Matches, "files": r.Files, "truncated": r.Truncated})}, nil
		},
	})
}

func (s *Service) listTool() tools.Entry {
	return tools.Typed(tools.TypedTool[ListInput]{
		Name:        ListTool,
		Description: "List a folder of the workspace: folders first (with a trailing /), then files with their sizes; symlinks show their target.",
		SearchHint:  "ls dir directory listing folder contents",
		ReadOnly:    true, ConcurrencySafe: true,
		Touches: func(in ListInput) tools.Touches { return tools.Touches{Paths: []string{pathOr(in.Path)}} },
		Run: func(ctx context.Context, in ListInput, _ func(tools.Progress)) (tools.Result, error) {
			var r ops.ListResult
			level, err := s.op(ctx, ops.OpList, func(c ops.Common) any { return ops.ListRequest{Common: c, Path: in.Path} }, &r)
			if err != nil {
				return refusal(level, err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d entries\n", r.Path, r.Total)
			for _, e := range r.Entries {
				switch e.Type {
				case "dir":
					fmt.Fprintf(&b, "%s/\n", e.Name)
				case "file":
					fmt.Fprintf(&b, "%s (%d bytes)\n", e.Name, e.Size)
				case "symlink":
					fmt.Fprintf(&b, "%s -> %s\n", e.Name, e.Target)
				default:
					fmt.Fprintf(&b, "%s (special file)\n", e.Name)
				}
			}
			if r.Truncated {
				fmt.Fprintf(&b, "(only the first %d are listed)\n", len(r.Entries))
			}
			return tools.Result{Content: strings.TrimRight(b.String(), "\n"), Display: display(map[string]any{"level": level, "path": r.Path, "total": r.Total})}, nil
		},
	})
}

func (s *Service) findTool() tools.Entry {
	return tools.Typed(tools.TypedTool[FindInput]{
		Name:        FindTool,
		Description: "Find files of the workspace by glob (** for any depth, {a,b} for either), newest first. Skips .git and node_modules unless the pattern names them.",
		SearchHint:  "glob find files names paths",
		ReadOnly:    true, ConcurrencySafe: true,
		Touches: func(in FindInput) tools.Touches { return tools.Touches{Paths: []string{pathOr(in.Path)}} },
		Run: func(ctx context.Context, in FindInput, _ func(tools.Progress)) (tools.Result, error) {
			var r ops.FindResult
			level, err := s.op(ctx, ops.OpFind, func(c ops.Common) any { return ops.FindRequest{Common: c, Pattern: in.Pattern, Path: in.Path} }, &r)
			if err != nil {
				return refusal(level, err)
			}
			text := fmt.Sprintf("No files match %q.", in.Pattern)
			if len(r.Files) > 0 {
				text = fmt.Sprintf("%d files match %q:\n%s", r.Total, in.Pattern, strings.Join(r.Files, "\n"))
			}
			if r.Truncated {
				text += fmt.Sprintf("\n(only %d are listed)", len(r.Files))
			}
			return tools.Result{Content: text, Display: display(map[string]any{"level": level, "total": r.Total})}, nil
		},
	})
}
