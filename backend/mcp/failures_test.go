package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/logring"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/mcp/proc"
)

func sh(name, script string) Server {
	return Server{Name: name, Transport: TransportStdio, Command: "/bin/sh", Args: []string{"-c", script}, Enabled: true}
}

func TestStartFailuresSayWhy(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Options.MaxRestarts = 1 })
	ctx := ctxT(t, 30*time.Second)

	t.Run("command not found", func(t *testing.T) {
		v := h.save(Server{Name: "missing", Command: "cairn-no-such-command-xyz", Args: []string{"-y"}, Enabled: true})
		_, err := h.m.RefreshTools(ctx, v.ID)
		ae := wantCode(t, err, apperr.MCPCommandNotFound)
		if ae.Params["command"] != "cairn-no-such-command-xyz" || !strings.Contains(fmt.Sprint(ae.Params["path"]), "/usr/bin") {
			t.Fatalf("params %v", ae.Params)
		}
		if ae.Action == nil || ae.Action.Target != "mcp" {
			t.Fatalf("action %+v", ae.Action)
		}
	})

	t.Run("exits at once", func(t *testing.T) {
		v := h.save(sh("quitter", `echo "boom: missing API key" >&2; exit 3`))
		_, err := h.m.RefreshTools(ctx, v.ID)
		ae := wantCode(t, err, apperr.MCPExited)
		if ae.Params["code"] != "exited with code 3" || !strings.Contains(fmt.Sprint(ae.Params["stderr"]), "boom: missing API key") {
			t.Fatalf("params %v", ae.Params)
		}
		st := h.m.servers[v.ID].status()
		if st.State != StateFailed || st.Error.Code != apperr.MCPExited || st.RetryAt != 0 {
			t.Fatalf("status %+v", st)
		}
	})

	t.Run("hangs", func(t *testing.T) {
		v := h.save(Server{Name: "sleeper", Command: "sleep", Args: []string{"300"}, Enabled: true, ConnectTimeoutMs: 300})
		start := time.Now()
		_, err := h.m.RefreshTools(ctx, v.ID)
		ae := wantCode(t, err, apperr.MCPConnectTimeout)
		if ae.Params["seconds"] != 1 || time.Since(start) > 5*time.Second {
			t.Fatalf("params %v after %s", ae.Params, time.Since(start))
		}
		lines, _ := h.m.Logs(v.ID, 0)
		i := slices.IndexFunc(lines, func(l logring.Line) bool { return strings.HasPrefix(l.Text, "started ") })
		if i < 0 {
			t.Fatal("no start line")
		}
		pid, _ := strconv.Atoi(strings.TrimSuffix(lines[i].Text[strings.LastIndex(lines[i].Text, "pid ")+4:], ")"))
		if pid == 0 || proc.GroupAlive(pid) {
			t.Fatalf("the hanging server's group (%d) is still alive", pid)
		}
	})

	t.Run("disabled", func(t *testing.T) {
		s := sh("off", "exit 0")
		s.Enabled = false
		v := h.save(s)
		_, err := h.m.CallTool(ctx, v.ID, "x", nil, nil)
		wantCode(t, err, apperr.MCPServerDisabled)
		if v.Status.State != StateDisabled {
			t.Fatalf("state %s", v.Status.State)
		}
	})
}

// TestCloseKillsTheWholeGroup: a server that started a helper of its own (as npx starts
// node) leaves nothing behind when Cairn closes it.
func TestCloseKillsTheWholeGroup(t *testing.T) {
	mcptest.NeedNPM(t)
	h := newHarness(t)
	script := fmt.Sprintf("sleep 300 & exec %q %q stdio", mcptest.Node(t), mcptest.Everything())
	v := h.save(sh("wrapped", script))
	if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
		t.Fatal(err)
	}
	pgid := h.m.servers[v.ID].status().Pid
	if members := groupMembers(pgid); len(members) < 2 {
		t.Fatalf("group %d has %v, want node and sleep", pgid, members)
	}
	if _, err := h.m.SetEnabled(context.Background(), v.ID, false); err != nil {
		t.Fatal(err)
	}
	if members := groupMembers(pgid); len(members) > 0 {
		t.Fatalf("left running after disable: %v", members)
	}
	if _, ok := h.reg.Lookup("x"); ok {
		t.Fatal("unexpected")
	}
	if n := len(h.reg.List()); n != 0 {
		t.Fatalf("a disabled server still has %d tools in the registry", n)
	}
}

// TestStderrEncodings: a server writing GBK (a Chinese Windows tool) shows readable text.
func TestStderrEncodings(t *testing.T) {
	mcptest.NeedNPM(t)
	h := newHarness(t)
	// "你好，世界" in GBK, then the real server.
	script := fmt.Sprintf(`printf '\304\343\272\303\243\254\312\300\275\347\n' >&2; exec %q %q stdio`, mcptest.Node(t), mcptest.Everything())
	v := h.save(sh("gbk", script))
	if _, err := h.m.RefreshTools(ctxT(t, 30*time.Second), v.ID); err != nil {
		t.Fatal(err)
	}
	lines, _ := h.m.Logs(v.ID, 0)
	if !slices.ContainsFunc(lines, func(l logring.Line) bool { return l.Text == "你好，世界" }) {
		t.Fatalf("GBK line not decoded: %+v", lines)
	}
}

// groupMembers lists the live processes of a process group (Linux /proc).
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// TestLoginShellPATH: a command that only the user's login shell puts on PATH (nvm,
// Homebrew) is found, and "not found" lists the login shell's directories too.
func TestLoginShellPATH(t *testing.T) {
	mcptest.NeedNPM(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "nvm", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf("#!/bin/sh\nexec %q %q stdio\n", mcptest.Node(t), mcptest.Everything())
	if err := os.WriteFile(filepath.Join(bin, "everything-server"), []byte(server), 0o755); err != nil {
		t.Fatal(err)
	}
	// A login shell whose profile adds bin to PATH; it runs the script it is given.
	shell := filepath.Join(dir, "loginsh")
	script := fmt.Sprintf("#!/bin/sh\nexport PATH=%q:\"$PATH\"\nshift\nexec /bin/sh -c \"$1\"\n", bin)
	if err := os.WriteFile(shell, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(c *Config) { c.Options.LoginShell = shell })
	v := h.save(Server{Name: "via-login-path", Command: "everything-server", Enabled: true})
	res, err := h.call(v.ID, "echo", `{"message":"found"}`, nil)
	if err != nil || res.Content != "Echo: found" {
		t.Fatalf("%+v %v", res, err)
	}
	m := h.save(Server{Name: "missing", Command: "not-installed-anywhere", Enabled: true})
	_, err = h.m.RefreshTools(ctxT(t, 10*time.Second), m.ID)
	ae := wantCode(t, err, apperr.MCPCommandNotFound)
	if !strings.HasPrefix(fmt.Sprint(ae.Params["path"]), bin+":") {
		t.Fatalf("searched %v", ae.Params["path"])
	}
}
