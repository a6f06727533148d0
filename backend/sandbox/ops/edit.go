package ops

import (
	"io"
	"os"
	"strings"
)

// EditRequest replaces OldString with NewString in a file: exactly once, or every time
// with ReplaceAll.
type EditRequest struct {
	Common
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// EditResult says what an edit did.
type EditResult struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	Line         int    `json:"line"` // of the first replacement
	Encoding     string `json:"encoding"`
	LineEnding   string `json:"lineEnding"` // lf or crlf
}

func edit(w *workspace, r EditRequest) (EditResult, error) {
	rel, err := w.rel(r.Path)
	if err != nil {
		return EditResult{}, err
	}
	switch {
	case r.OldString == "":
		return EditResult{}, fail(CodeBadRequest, r.Path, "old_string is empty: to create or overwrite a file, use the write tool")
	case r.OldString == r.NewString:
		return EditResult{}, fail(CodeBadRequest, r.Path, "old_string and new_string are the same: there is nothing to change")
	}
	if err := w.checkWritable(rel); err != nil {
		return EditResult{}, err
	}
	f, err := w.open(rel, os.O_RDWR|nonBlock, 0, true)
	if err != nil {
		return EditResult{}, err
	}
	fi, err := regular(f, rel)
	if err == nil && fi.Size() > MaxWrite {
		err = fail(CodeTooLarge, show(rel), "%s is %d bytes; an edit rewrites files of at most %d", show(rel), fi.Size(), MaxWrite)
	}
	if err != nil {
		_ = f.Close()
		return EditResult{}, err
	}
	out, res, err := replaced(f, rel, r)
	if err != nil {
		_ = f.Close()
		return EditResult{}, err
	}
	if err := replaceContent(f, out); err != nil {
		return EditResult{}, fail(CodeIO, show(rel), "write %s: %v", show(rel), err)
	}
	return res, nil
}

// replaced is the file's new bytes: decoded in its encoding, the replacement made with
// its line endings, encoded back.
func replaced(f io.Reader, rel string, r EditRequest) ([]byte, EditResult, error) {
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, EditResult{}, fail(CodeIO, show(rel), "read %s: %v", show(rel), err)
	}
	enc := detectEncoding(raw)
	text, err := enc.decode(raw)
	if err != nil {
		return nil, EditResult{}, fail(CodeEncoding, show(rel), "%s cannot be edited: %v", show(rel), err)
	}
	res := EditResult{Path: show(rel), Encoding: enc.name, LineEnding: "lf"}
	if enc.name == "utf-8" {
		res.Encoding = enc.label()
	}
	old, repl := r.OldString, r.NewString
	if crlf(text) {
		res.LineEnding = "crlf"
		if !strings.Contains(old, "\r") {
			old, repl = toCRLF(old), toCRLF(repl)
		}
	}
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return nil, res, fail(CodeNoMatch, show(rel), "old_string was not found in %s; it must match the file exactly, whitespace and indentation included (read the file again)", show(rel))
	case n > 1 && !r.ReplaceAll:
		return nil, res, fail(CodeManyMatches, show(rel), "old_string matches %d times in %s; give more surrounding lines so it matches once, or set replace_all", n, show(rel))
	}
	res.Line = strings.Count(text[:strings.Index(text, old)], "\n") + 1
	if r.ReplaceAll {
		text, res.Replacements = strings.ReplaceAll(text, old, repl), n
	} else {
		text, res.Replacements = strings.Replace(text, old, repl, 1), 1
	}
	out, err := enc.encode(text)
	if err != nil {
		return nil, res, fail(CodeEncoding, show(rel), "the new text cannot be written as %s: %v", enc.name, err)
	}
	return out, res, nil
}

// crlf reports whether most of the text's line ends are \r\n.
func crlf(text string) bool {
	all := strings.Count(text, "\n")
	return all > 0 && strings.Count(text, "\r\n")*2 > all
}

// toCRLF turns every \n that is not part of \r\n into \r\n.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
