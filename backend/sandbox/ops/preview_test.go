package ops

import (
	"strings"
	"testing"
)

// TestPreview: a write or an edit is shown as a diff against the file as it is, with its
// context, and nothing changes; a new file is all added; what cannot be diffed says why;
// the same paths are refused as the write would refuse them.
func TestPreview(t *testing.T) {
	long := strings.Repeat("line\n", 20)
	tests := []struct {
		name           string
		before         *string // nil: no file
		req            PreviewRequest
		want           []string // lines the diff must hold
		added, removed int
		created        bool
		unchanged      bool // the file already holds it: no diff
		unshown, code  string
	}{
		{name: "overwrite", before: ptr("a\nb\nc\n"), req: PreviewRequest{Write: true, Content: "a\nB\nc\n"},
			want: []string{"--- a/f.txt", "+++ b/f.txt", " a", "-b", "+B", " c"}, added: 1, removed: 1},
		{name: "same content", before: ptr("a\nb\n"), req: PreviewRequest{Write: true, Content: "a\nb\n"}, unchanged: true},
		{name: "same binary", before: ptr("\x00\x01"), req: PreviewRequest{Write: true, Content: "\x00\x01"}, unchanged: true},
		{name: "empty new file", req: PreviewRequest{Write: true, Content: ""}, created: true},
		{name: "new file", req: PreviewRequest{Write: true, Content: "one\ntwo\n"}, want: []string{"+one", "+two"}, added: 2, created: true},
		{name: "edit in context", before: ptr(long + "target\n" + long), req: PreviewRequest{OldString: "target", NewString: "aimed"},
			want: []string{"@@ -18,7 +18,7 @@", "-target", "+aimed", " line"}, added: 1, removed: 1},
		{name: "edit crlf", before: ptr("one\r\ntwo\r\n"), req: PreviewRequest{OldString: "two", NewString: "deux"}, want: []string{"-two", "+deux"}, added: 1, removed: 1},
		{name: "edit no match", before: ptr("alpha\n"), req: PreviewRequest{OldString: "beta", NewString: "x"}, code: CodeNoMatch},
		{name: "edit missing file", req: PreviewRequest{OldString: "a", NewString: "b"}, code: CodeNotFound},
		{name: "binary", before: ptr("\x00\x01\x02"), req: PreviewRequest{Write: true, Content: "text\n"}, unshown: "binary"},
		{name: "too large", before: ptr(strings.Repeat("x", MaxPreviewFile+1)), req: PreviewRequest{Write: true, Content: "x"}, unshown: CodeTooLarge},
		{name: "outside", req: PreviewRequest{Write: true, Content: "x"}, code: CodeOutside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			path := "f.txt"
			if tt.code == CodeOutside {
				path = "../outside/f.txt"
			}
			if tt.before != nil {
				e.put(path, *tt.before)
			}
			tt.req.Common, tt.req.Path = e.common(), path
			var r PreviewResult
			err := call(t, OpPreview, tt.req, &r)
			if tt.code != "" {
				wantCode(t, err, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.before != nil && e.get(path) != *tt.before {
				t.Fatal("a preview changed the file")
			}
			if tt.unchanged && r.Diff != "" {
				t.Fatalf("an unchanged file has a diff: %q", r.Diff)
			}
			lines := strings.Split(r.Diff, "\n")
			for _, w := range tt.want {
				if !contains(lines, w) {
					t.Fatalf("the diff has no line %q:\n%s", w, r.Diff)
				}
			}
			if r.Added != tt.added || r.Removed != tt.removed || r.Created != tt.created || r.Unchanged != tt.unchanged || r.Unshown != tt.unshown {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

// TestPreviewRefusesSymlinks: a symlink in the workspace pointing out is not followed to
// show a file outside it.
func TestPreviewRefusesSymlinks(t *testing.T) {
	e := newEnv(t)
	secret := e.put(e.outside+"/secret.txt", "secret\n")
	e.link(secret, "link.txt")
	var r PreviewResult
	err := call(t, OpPreview, PreviewRequest{Common: e.common(), Path: "link.txt", Write: true, Content: "x"}, &r)
	if err == nil || strings.Contains(r.Diff, "secret") {
		t.Fatalf("a preview followed a symlink out: %+v %v", r, err)
	}
}

// TestCutDiff: a long diff is cut on a line end and says so.
func TestCutDiff(t *testing.T) {
	d := strings.Repeat("+0123456789\n", MaxPreviewDiff/12+10)
	got, cut := cutDiff(d)
	if !cut || len(got) > MaxPreviewDiff || !strings.HasSuffix(got, "\n") {
		t.Fatalf("cut %v, %d bytes", cut, len(got))
	}
	if got, cut := cutDiff("+a\n"); cut || got != "+a\n" {
		t.Fatal("a short diff was cut")
	}
}

func ptr(s string) *string { return &s }

// contains reports whether one of the lines is want, a CRLF file's \r aside.
func contains(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimSuffix(l, "\r") == want {
			return true
		}
	}
	return false
}
