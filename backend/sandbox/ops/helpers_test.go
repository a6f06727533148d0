package ops

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// env is a workspace with an outside folder beside it holding a secret.
type env struct {
	t       *testing.T
	ws      string
	outside string
	secret  string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{t: t, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{e.ws, e.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.secret = filepath.Join(e.outside, "secret.txt")
	e.put(e.secret, "TOP SECRET\n")
	return e
}

// put writes a file, path relative to the workspace unless absolute.
func (e *env) put(p, content string) string {
	e.t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.ws, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) get(p string) string {
	e.t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.ws, p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) link(target, name string) {
	e.t.Helper()
	if err := os.Symlink(target, filepath.Join(e.ws, name)); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) common() Common {
	return Common{Workspace: e.ws, Protected: []string{".git/hooks", ".git/config", ".bashrc", ".vscode"}}
}

// call runs op through Main, as the sandbox's helper does, and decodes the reply into out;
// it returns the op's refusal.
func call(t *testing.T, op string, req, out any) *Error {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if code := Main(op, bytes.NewReader(in), &stdout); code != 0 {
		t.Fatalf("Main(%s) = %d: %s", op, code, stdout.String())
	}
	err = Decode(stdout.Bytes(), out)
	if err == nil {
		return nil
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("%s: reply is not an op error: %v", op, err)
	}
	return e
}

// wantCode fails unless the op refused with code.
func wantCode(t *testing.T, got *Error, code string) {
	t.Helper()
	if got == nil {
		t.Fatalf("op succeeded; want refusal %s", code)
	}
	if got.Code != code {
		t.Fatalf("refusal %s (%s); want %s", got.Code, got.Message, code)
	}
}
