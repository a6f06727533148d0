package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/mcp/oauth/oauthtest"
)

// TestMCPLoginLogout: `cairn mcp login` prints the sign-in page, waits for the browser
// (played by an HTTP client) and lists the tools; another process uses the stored token;
// `cairn mcp logout` deletes it.
func TestMCPLoginLogout(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("SHELL", "")
	as := oauthtest.New(t, oauthtest.Options{})
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, fmt.Appendf(nil, `{"mcpServers": {"remote": {"type": "http", "url": %q}}}`, as.MCPURL), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("import: %q %q", r.stdout, r.stderr)
	}
	if r := run(t, dir, "", "mcp", "call", "remote", "whoami", "{}"); r.code != 1 || !strings.Contains(r.stderr, "needs a sign-in") {
		t.Fatalf("call before login: %d %q", r.code, r.stderr)
	}

	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		env := &Env{Stdin: strings.NewReader(""), Stdout: pw, Stderr: &stderr}
		done <- Run(context.Background(), []string{"--data-dir", dir, "mcp", "login", "remote", "--no-browser"}, env)
		pw.Close()
	}()
	out := bufio.NewReader(pr)
	authURL, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(out)
		rest <- string(b)
	}()
	resp, err := http.Get(strings.TrimSpace(authURL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	code, tail := <-done, <-rest
	if code != 0 || !strings.Contains(tail, "signed in to remote: 1 tools") || !strings.Contains(stderr.String(), "Sign in to remote") {
		t.Fatalf("login: %d %q %q", code, tail, stderr.String())
	}

	if r := run(t, dir, "", "mcp", "call", "remote", "whoami", "{}"); r.code != 0 || strings.TrimSpace(r.stdout) != "token #1" {
		t.Fatalf("call after login: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := run(t, dir, "", "mcp", "logout", "remote"); r.code != 0 || !strings.Contains(r.stdout, "signed out") {
		t.Fatalf("logout: %q %q", r.stdout, r.stderr)
	}
	if r := run(t, dir, "", "mcp", "call", "remote", "whoami", "{}"); r.code != 1 || !strings.Contains(r.stderr, "needs a sign-in") {
		t.Fatalf("call after logout: %d %q", r.code, r.stderr)
	}
}
