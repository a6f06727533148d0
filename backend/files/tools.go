package files

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/tools"
)

// Paging and search limits of the tools.
const (
	defaultLimit     = 200
	maxLimit         = 2000
	maxLineRunes     = 2000 // a longer line is cut and says how long it was
	defaultMatches   = 50
	maxMatches       = 500
	maxContext       = 10
	maxPatternLength = 1000
)

type readInput struct {
	File   string `json:"file" jsonschema:"The attached file, by its name as listed (or its id)"`
	Offset int    `json:"offset,omitempty" jsonschema:"The first line to read, counted from 1 (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many lines to read (default 200, at most 2000)"`
}

type searchInput struct {
	Pattern    string `json:"pattern" jsonschema:"A regular expression (RE2 syntax), or plain text when literal is true"`
	File       string `json:"file,omitempty" jsonschema:"The attached file to search; every attached file when left out"`
	Literal    bool   `json:"literal,omitempty" jsonschema:"Match pattern as plain text, not as a regular expression"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"Match regardless of letter case"`
	Context    int    `json:"context,omitempty" jsonschema:"Lines shown before and after each match (default 0, at most 10)"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"The most matches listed (default 50, at most 500); the count covers all"`
}

// Tools are the toolset's two read-only tools over the store.
func Tools(s *Store) []tools.Entry {
	return []tools.Entry{readTool(s), searchTool(s)}
}

func readTool(s *Store) tools.Entry {
	return tools.Typed(tools.TypedTool[readInput]{
		Name:        tools.BuiltinName(Name, "read"),
		Description: "Read lines of a document attached to this conversation, numbered like cat -n. Returns up to limit lines from offset and says how many lines the file has; call again with the next offset to go on.",
		ReadOnly:    true, ConcurrencySafe: true, Instruction: instruction,
		Run: func(ctx context.Context, in readInput, _ func(tools.Progress)) (tools.Result, error) {
			att, text, err := s.sessionFile(ctx, in.File)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Content: ReadLines(att.Name, text, in.Offset, in.Limit)}, nil
		},
	})
}

func searchTool(s *Store) tools.Entry {
	return tools.Typed(tools.TypedTool[searchInput]{
		Name:        tools.BuiltinName(Name, "search"),
		Description: "Search documents attached to this conversation for a regular expression or plain text. Lists matching lines with their line numbers (and context lines when asked) and counts every match.",
		ReadOnly:    true, ConcurrencySafe: true, Instruction: instruction,
		Validate: func(_ context.Context, in searchInput) error {
			_, err := compile(in)
			return err
		},
		Run: func(ctx context.Context, in searchInput, _ func(tools.Progress)) (tools.Result, error) {
			re, err := compile(in)
			if err != nil {
				return tools.Result{}, err
			}
			targets, err := s.searchTargets(ctx, in.File)
			if err != nil {
				return tools.Result{}, err
			}
			limit := clamp(in.MaxMatches, defaultMatches, maxMatches)
			var b strings.Builder
			total := 0
			for _, t := range targets {
				n := SearchLines(&b, t.att.Name, t.text, re, clamp(in.Context, 0, maxContext), limit-min(total, limit))
				total += n
			}
			head := fmt.Sprintf("%s for %q in %d file(s).", plural(total, "match", "matches"), in.Pattern, len(targets))
			if total > limit {
				head += fmt.Sprintf(" The first %d are listed: narrow the pattern or pass file to see others.", limit)
			}
			return tools.Result{Content: strings.TrimRight(head+"\n"+b.String(), "\n")}, nil
		},
	})
}

func compile(in searchInput) (*regexp.Regexp, error) {
	if in.Pattern == "" || len(in.Pattern) > maxPatternLength {
		return nil, fmt.Errorf("pattern must be 1 to %d characters", maxPatternLength)
	}
	p := in.Pattern
	if in.Literal {
		p = regexp.QuoteMeta(p)
	}
	if in.IgnoreCase {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a valid regular expression (pass literal: true to match it as text): %w", err)
	}
	return re, nil
}

func clamp(v, def, hi int) int {
	if v <= 0 {
		return def
	}
	return min(v, hi)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// ReadLines is file_read's answer: a heading with the file's line count, then lines
// offset.. (1-based) as cat -n writes them (number right-aligned in six columns, a tab,
// the line), lines longer than maxLineRunes cut with their length, and where to go on.
func ReadLines(name, text string, offset, limit int) string {
	lines := splitLines(text)
	total := len(lines)
	offset = max(offset, 1)
	limit = clamp(limit, defaultLimit, maxLimit)
	if total == 0 {
		return fmt.Sprintf("%s is empty (0 lines).", name)
	}
	if offset > total {
		return fmt.Sprintf("%s has %s lines; offset %d is past the end.", name, thousands(total), offset)
	}
	end := min(offset+limit-1, total)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: lines %s-%s of %s\n", name, thousands(offset), thousands(end), thousands(total))
	for i := offset; i <= end; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, cutLine(lines[i-1]))
	}
	if end < total {
		fmt.Fprintf(&b, "(%s more lines: call file_read with offset %d to go on)", thousands(total-end), end+1)
	} else {
		b.WriteString("(end of file)")
	}
	return b.String()
}

// SearchLines writes the matches of re in one file to b, grep style under the file's
// name: "  12: text" for a matching line, "  11- text" for context, "--" between groups
// that do not touch. It lists at most limit matches and returns how many lines matched.
func SearchLines(b *strings.Builder, name, text string, re *regexp.Regexp, context, limit int) int {
	lines := splitLines(text)
	var hits []int
	for i, ln := range lines {
		if re.MatchString(ln) {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		return 0
	}
	fmt.Fprintf(b, "\n%s (%s lines): %s\n", name, thousands(len(lines)), plural(len(hits), "match", "matches"))
	shown := hits[:min(len(hits), limit)]
	last := -1 // the last line written
	for _, h := range shown {
		from, to := max(h-context, last+1), min(h+context, len(lines)-1)
		if last >= 0 && from > last+1 {
			b.WriteString("--\n")
		}
		for i := from; i <= to; i++ {
			mark := "-"
			if re.MatchString(lines[i]) {
				mark = ":"
			}
			fmt.Fprintf(b, "%6d%s %s\n", i+1, mark, cutLine(lines[i]))
		}
		last = to
	}
	return len(hits)
}

// splitLines splits text into lines; a final newline ends the last line, not a new one.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func cutLine(s string) string {
	if utf8.RuneCountInString(s) <= maxLineRunes {
		return s
	}
	n := utf8.RuneCountInString(s)
	r := []rune(s)
	return string(r[:maxLineRunes]) + fmt.Sprintf(" … [line cut: %s characters in all]", thousands(n))
}

type target struct {
	att  chat.Attachment
	text string
}

// sessionFile finds the call's session's attached document named ref and its text.
func (s *Store) sessionFile(ctx context.Context, ref string) (chat.Attachment, string, error) {
	all, err := s.callFiles(ctx)
	if err != nil {
		return chat.Attachment{}, "", err
	}
	att, err := pick(all, ref)
	if err != nil {
		return chat.Attachment{}, "", err
	}
	text, err := s.Text(ctx, att.ID)
	return att, text, err
}

func (s *Store) searchTargets(ctx context.Context, ref string) ([]target, error) {
	all, err := s.callFiles(ctx)
	if err != nil {
		return nil, err
	}
	if ref != "" {
		att, err := pick(all, ref)
		if err != nil {
			return nil, err
		}
		all = []chat.Attachment{att}
	}
	var out []target
	for _, a := range all {
		text, err := s.Text(ctx, a.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, target{a, text})
	}
	return out, nil
}

func (s *Store) callFiles(ctx context.Context) ([]chat.Attachment, error) {
	call, ok := tools.CallFromContext(ctx)
	if !ok || call.SessionID == "" {
		return nil, fmt.Errorf("file tools read the files of a conversation; this call has none")
	}
	all, err := s.SessionFiles(ctx, call.SessionID)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no documents are attached to this conversation")
	}
	return all, nil
}

// pick finds ref among the files: the name as listed, then regardless of case, then an id
// (or its first 8+ characters). Not found names the files there are.
func pick(all []chat.Attachment, ref string) (chat.Attachment, error) {
	ref = strings.TrimSpace(ref)
	for _, match := range []func(chat.Attachment) bool{
		func(a chat.Attachment) bool { return a.Name == ref },
		func(a chat.Attachment) bool { return strings.EqualFold(a.Name, ref) },
		func(a chat.Attachment) bool { return len(ref) >= 8 && strings.HasPrefix(a.ID, strings.ToLower(ref)) },
	} {
		for _, a := range all {
			if match(a) {
				return a, nil
			}
		}
	}
	names := make([]string, 0, len(all))
	for _, a := range all {
		names = append(names, a.Name)
	}
	return chat.Attachment{}, apperr.New(apperr.AttachmentNotFound, "no attached file %q; the attached files are: %s", ref, strings.Join(names, ", ")).
		WithParam("name", ref)
}
