package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/oauth/oauthtest"
)

// startLogin starts `cairn mcp login remote --no-browser` and returns it with the
// authorization page it printed.
func startLogin(t *testing.T, bin, dir string) (*exec.Cmd, string, *bytes.Buffer, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(bin, "--data-dir", dir, "mcp", "login", "remote", "--no-browser")
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file", "LANG=en_US.UTF-8")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	out := bufio.NewReader(stdout)
	authURL, err := out.ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("login printed no page: %v; stderr %s", err, stderr.String())
	}
	return cmd, strings.TrimSpace(authURL), &stderr, out
}

// TestMCPLoginThroughServe: with `cairn serve` running, `cairn mcp login` signs in
// through serve: the command never opens the database, the browser's answer reaches
// serve's sign-in, the tab sees the server connect, and serve's connection uses the token.
// Ctrl-C of a second login cancels the sign-in waiting in serve.
func TestMCPLoginThroughServe(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("reads open files through /proc")
	}
	t.Setenv("CAIRN_SECRETS", "file")
	as := oauthtest.New(t, oauthtest.Options{})
	bin := buildCairn(t)
	dir := t.TempDir()
	serve := startServeChild(t, bin, dir)
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, fmt.Appendf(nil, `{"mcpServers": {"remote": {"type": "http", "url": %q}}}`, as.MCPURL), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, bin, dir, "", "mcp", "import", file); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	tb := serve.openTab(t)

	cmd, authURL, stderr, out := startLogin(t, bin, dir)
	if opensDatabase(t, cmd.Process.Pid, dir) {
		t.Fatal("the login command opened the database beside serve")
	}
	resp, err := http.Get(authURL) // the browser
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tail, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil || !strings.Contains(string(tail), "signed in to remote: 1 tools") {
		t.Fatalf("login: %v %q %q", err, tail, stderr.String())
	}
	tb.wait(t, "the server connected after the sign-in", func(ev events.Event) bool {
		var v mcp.ServerView
		return ev.Type == "mcp:server" && json.Unmarshal(ev.Data, &v) == nil && v.Name == "remote" && v.Status.State == mcp.StateReady
	})
	if r := runBin(t, bin, dir, "", "mcp", "call", "remote", "whoami", "{}"); r.code != 0 || strings.TrimSpace(r.stdout) != "token #1" {
		t.Fatalf("call through serve after login: %+v", r)
	}

	// A login left waiting, then Ctrl-C: serve's sign-in is cancelled, not left open.
	cmd, _, stderr, _ = startLogin(t, bin, dir)
	pending := func(want bool) func(events.Event) bool {
		return func(ev events.Event) bool {
			var v mcp.ServerView
			return ev.Type == "mcp:server" && json.Unmarshal(ev.Data, &v) == nil && v.Name == "remote" &&
				v.Status.OAuth != nil && v.Status.OAuth.Pending == want
		}
	}
	tb.wait(t, "the second sign-in waiting in serve", pending(true))
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("login did not end on Ctrl-C; stderr %s", stderr.String())
	}
	// It was pending in serve (the event above); the command's Ctrl-C ends it there.
	for deadline := time.Now().Add(10 * time.Second); ; {
		var views mcp.Snapshot
		serve.call(t, "ListMCPServers", &views)
		i := slices.IndexFunc(views.Servers, func(v mcp.ServerView) bool { return v.Name == "remote" })
		if i < 0 {
			t.Fatal("the server is gone")
		}
		o := views.Servers[i].Status.OAuth
		if o != nil && !o.Pending && o.SignedIn {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the cancelled login: %+v, want signed in and nothing pending", o)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
