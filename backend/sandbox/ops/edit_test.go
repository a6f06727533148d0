package ops

import (
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	tests := []struct {
		name       string
		before     string
		old, new   string
		all        bool
		after      string
		count      int
		code       string
		lineEnding string
	}{
		{name: "once", before: "a := 1\nb := 2\n", old: "b := 2", new: "b := 3", after: "a := 1\nb := 3\n", count: 1, lineEnding: "lf"},
		{name: "twice refused", before: "x\nx\n", old: "x", new: "y", code: CodeManyMatches},
		{name: "replace all", before: "x\nx\nz\n", old: "x", new: "y", all: true, after: "y\ny\nz\n", count: 2, lineEnding: "lf"},
		{name: "no match", before: "alpha\n", old: "beta", new: "gamma", code: CodeNoMatch},
		{name: "whitespace matters", before: "\tindent\n", old: "    indent", new: "x", code: CodeNoMatch},
		{name: "empty old", before: "a\n", old: "", new: "b", code: CodeBadRequest},
		{name: "same", before: "a\n", old: "a", new: "a", code: CodeBadRequest},
		{name: "crlf kept", before: "one\r\ntwo\r\nthree\r\n", old: "one\ntwo", new: "1\n2\n2.5", after: "1\r\n2\r\n2.5\r\nthree\r\n", count: 1, lineEnding: "crlf"},
		{name: "crlf given", before: "one\r\ntwo\r\n", old: "two\r\n", new: "deux\r\n", after: "one\r\ndeux\r\n", count: 1, lineEnding: "crlf"},
		{name: "lone cr left alone", before: "a\rb\nc\n", old: "c", new: "d", after: "a\rb\nd\n", count: 1, lineEnding: "lf"},
		{name: "utf-8 bom kept", before: "\xEF\xBB\xBFhello\n", old: "hello", new: "bonjour", after: "\xEF\xBB\xBFbonjour\n", count: 1, lineEnding: "lf"},
		{name: "invalid utf-8 refused", before: "caf\xE9\n", old: "caf", new: "tea", code: CodeEncoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.put("f.txt", tt.before)
			var r EditResult
			err := call(t, OpEdit, EditRequest{Common: e.common(), Path: "f.txt", OldString: tt.old, NewString: tt.new, ReplaceAll: tt.all}, &r)
			if tt.code != "" {
				wantCode(t, err, tt.code)
				if e.get("f.txt") != tt.before {
					t.Fatal("a refused edit changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.get("f.txt"); got != tt.after || r.Replacements != tt.count || r.LineEnding != tt.lineEnding {
				t.Fatalf("got %q, %d replacements, %s; want %q", got, r.Replacements, r.LineEnding, tt.after)
			}
		})
	}
}

func TestEditKeepsUTF16(t *testing.T) {
	for _, name := range []string{"utf-16le", "utf-16be"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			enc := encoding{name: name, bom: true}
			raw, err := enc.encode("first\r\n第二\r\n")
			if err != nil {
				t.Fatal(err)
			}
			e.put("w.txt", string(raw))
			var r EditResult
			if err := call(t, OpEdit, EditRequest{Common: e.common(), Path: "w.txt", OldString: "第二", NewString: "second\nthird"}, &r); err != nil {
				t.Fatal(err)
			}
			want, _ := enc.encode("first\r\nsecond\r\nthird\r\n")
			if got := e.get("w.txt"); got != string(want) || r.Encoding != name || r.Line != 2 {
				t.Fatalf("got % x (%+v); want % x", got, r, want)
			}
		})
	}
}

func TestEditMissingFileSaysWrite(t *testing.T) {
	e := newEnv(t)
	err := call(t, OpEdit, EditRequest{Common: e.common(), Path: "nope.txt", OldString: "a", NewString: "b"}, nil)
	wantCode(t, err, CodeNotFound)
	if !strings.Contains(err.Message, "nope.txt") {
		t.Fatalf("message %q", err.Message)
	}
}
