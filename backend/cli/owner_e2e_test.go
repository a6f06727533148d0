package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/owner"
	"github.com/cairn-app/cairn/backend/tools"
)

// serveChild is a `cairn serve` process of the built binary.
type serveChild struct {
	cmd    *exec.Cmd
	url    string // the printed address, token included
	base   string // http://host:port
	token  string
	mu     sync.Mutex
	stderr bytes.Buffer
}

var anyServeLine = regexp.MustCompile(`Cairn is serving at (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{64})`)

func startServeChild(t *testing.T, bin, dir string) *serveChild {
	t.Helper()
	c := &serveChild{cmd: exec.Command(bin, "--data-dir", dir, "serve")}
	c.cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file")
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.stderr.Write(p)
	})
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	m := anyServeLine.FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("serve's first line %q (%v); stderr %s", line, err, c.errText())
	}
	go io.Copy(io.Discard, out)
	c.url, c.base, c.token = strings.TrimSpace(line), m[1], m[2]
	return c
}

func (c *serveChild) errText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// waitErr waits for serve's stderr to hold want: exec copies a child's stderr through a
// goroutine of its own, so a line written before the URL line can arrive after it.
func (c *serveChild) waitErr(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(c.errText(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("serve's stderr never said %q: %s", want, c.errText())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// call posts a facade call to serve's HTTP API as a browser tab does.
func (c *serveChild) call(t *testing.T, method string, out any, args ...any) {
	t.Helper()
	body, _ := json.Marshal(args)
	req, _ := http.NewRequest(http.MethodPost, c.base+"/api/"+method, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s %s", method, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, &struct {
			Result any `json:"result"`
		}{out}); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
}

// tab is a browser tab's event stream on serve: every event it received so far.
type tab struct {
	mu   sync.Mutex
	evs  []events.Event
	more chan struct{}
}

func (c *serveChild) openTab(t *testing.T) *tab {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %v %v", resp, err)
	}
	tb := &tab{more: make(chan struct{}, 1)}
	hello := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev events.Event
			if json.Unmarshal([]byte(data), &ev) != nil {
				continue
			}
			if ev.Type == "hello" {
				close(hello)
				continue
			}
			tb.mu.Lock()
			tb.evs = append(tb.evs, ev)
			tb.mu.Unlock()
			select {
			case tb.more <- struct{}{}:
			default:
			}
		}
	}()
	select {
	case <-hello:
	case <-time.After(20 * time.Second):
		t.Fatal("no hello on the tab's event stream")
	}
	return tb
}

// wait returns the first event received that matches, waiting up to a minute.
func (tb *tab) wait(t *testing.T, what string, match func(events.Event) bool) events.Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		tb.mu.Lock()
		for _, ev := range tb.evs {
			if match(ev) {
				tb.mu.Unlock()
				return ev
			}
		}
		tb.mu.Unlock()
		select {
		case <-tb.more:
		case <-deadline:
			t.Fatalf("the tab never received %s", what)
		}
	}
}

// runBin runs the built binary to the end with stdin.
func runBin(t *testing.T, bin, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file", "LANG=en_US.UTF-8")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

var sessionLine = regexp.MustCompile(`(?m)^session (\S+)$`)

// TestCommandsWorkThroughServe: with `cairn serve` running, a terminal chat and a
// settings change reach the tab live, doctor names the owner, a second serve serves the
// same backend, and after serve is killed a command works and a new serve takes over.
func TestCommandsWorkThroughServe(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	llm := llmtest.Start(t)
	llm.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "hello from the fake model"} })
	if r := runBin(t, bin, dir, "", "provider", "add", "fake", "--base-url", llm.URL, "--model", "m"); r.code != 0 {
		t.Fatalf("provider add: %+v", r)
	}
	serve := startServeChild(t, bin, dir)
	tb := serve.openTab(t)

	r := runBin(t, bin, dir, "", "chat", "--provider", "fake", "hi there")
	m := sessionLine.FindStringSubmatch(r.stderr)
	if r.code != 0 || !strings.Contains(r.stdout, "hello from the fake model") || m == nil {
		t.Fatalf("chat through serve: %+v", r)
	}
	topic := events.SessionTopic(m[1])
	tb.wait(t, "the terminal chat's answer", func(ev events.Event) bool {
		return ev.Topic == topic && strings.Contains(string(ev.Data), "hello from the fake model")
	})

	if r := runBin(t, bin, dir, "", "settings", "set", "general.theme", "dark"); r.code != 0 {
		t.Fatalf("settings set: %+v", r)
	}
	tb.wait(t, "the settings change", func(ev events.Event) bool {
		return ev.Type == "settings:changed" && strings.Contains(string(ev.Data), "dark")
	})
	if r := runBin(t, bin, dir, "", "settings", "set", "general.theme", "purple"); r.code != 2 || !strings.Contains(r.stderr, "general.theme") {
		t.Fatalf("an invalid value through serve: %+v", r)
	}

	pid := serve.cmd.Process.Pid
	if r := runBin(t, bin, dir, "", "doctor"); !strings.Contains(r.stdout, fmt.Sprintf("cairn serve (PID %d) owns the data directory", pid)) ||
		!strings.Contains(r.stdout, "1 window") {
		t.Fatalf("doctor does not name the owner: %+v", r)
	}

	second := startServeChild(t, bin, dir)
	second.waitErr(t, fmt.Sprintf("cairn serve (PID %d) already runs the backend", pid))
	var snap struct {
		Values map[string]any `json:"values"`
	}
	second.call(t, "GetSettings", &snap)
	if snap.Values["general.theme"] != "dark" {
		t.Fatalf("second serve's settings: %+v", snap.Values)
	}
	if in, ok := owner.ReadInfo(dir); !ok || in.PID != pid {
		t.Fatalf("owner after the second serve: %+v", in)
	}

	// A dead owner: the lock goes with it, the socket file stays.
	serve.cmd.Process.Signal(syscall.SIGKILL)
	serve.cmd.Wait()
	if err := second.cmd.Wait(); err == nil || !strings.Contains(second.errText(), "stopped answering") {
		t.Fatalf("the second serve outlived its owner quietly: %v %s", err, second.errText())
	}
	if r := runBin(t, bin, dir, "", "settings", "get", "general.theme"); r.code != 0 || strings.TrimSpace(r.stdout) != "dark" {
		t.Fatalf("settings get after the owner died: %+v", r)
	}
	third := startServeChild(t, bin, dir)
	if strings.Contains(third.errText(), "already runs") {
		t.Fatalf("a new serve did not take over: %s", third.errText())
	}
	if in, ok := owner.ReadInfo(dir); !ok || in.PID != third.cmd.Process.Pid {
		t.Fatalf("owner after the take-over: %+v", in)
	}
	if r := runBin(t, bin, dir, "", "chat", "--provider", "fake", "again"); r.code != 0 {
		t.Fatalf("chat through the new owner: %+v", r)
	}
}

// TestTerminalApprovalDecidedInTheTab: a terminal chat's tool call waits for approval;
// the tab sees the request, decides it over serve's API, and the terminal's chat goes on
// with the tool's result.
func TestTerminalApprovalDecidedInTheTab(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	setUpGatedTool(t, dir)
	serve := startServeChild(t, bin, dir)
	tb := serve.openTab(t)

	cmd := exec.Command(bin, "--data-dir", dir, "chat", "--provider", "fake", "--approve", "ask", "toggle it")
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file")
	stdin, err := cmd.StdinPipe() // the terminal never answers
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ev := tb.wait(t, "the terminal chat's approval request", func(ev events.Event) bool {
		return ev.Type == approval.EventRequested
	})
	var req approval.Request
	if err := json.Unmarshal(ev.Data, &req); err != nil {
		t.Fatal(err)
	}
	serve.call(t, "DecideApproval", nil, req.ID, "allow_once", "", "tab")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "The tool said:") {
			t.Fatalf("chat after the tab allowed: %v\nstdout %s\nstderr %s", err, out.String(), errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the terminal chat never went on after the tab decided")
	}
	if !strings.Contains(errb.String(), "Answered in tab: allow_once") {
		t.Fatalf("the terminal was not told who answered:\n%s", errb.String())
	}
}

// everythingChildren counts the server-everything processes whose parent is pid.
func everythingChildren(pid int) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: the comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != fmt.Sprint(pid) {
			continue
		}
		if cmd, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline"); bytes.Contains(cmd, []byte("server-everything")) {
			n++
		}
	}
	return n
}

// TestMCPCallThroughServeStartsNoSecondServer: `cairn mcp call` while serve runs uses
// serve's connection to the server; the command itself starts no server process.
func TestMCPCallThroughServeStartsNoSecondServer(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Fatalf("this test counts processes through /proc: %v", err)
	}
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	setUpGatedTool(t, dir)
	serve := startServeChild(t, bin, dir)
	servePID := serve.cmd.Process.Pid

	cmd := exec.Command(bin, "--data-dir", dir, "mcp", "call", "everything", "echo", `{"message":"through the owner"}`)
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	own := 0
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("mcp call: %v\n%s", err, errb.String())
			}
			waiting = false
		case <-time.After(5 * time.Millisecond):
			own = max(own, everythingChildren(cmd.Process.Pid))
		}
	}
	if own != 0 || !strings.Contains(out.String(), "through the owner") {
		t.Fatalf("the command started %d server processes of its own; stdout %q", own, out.String())
	}
	if n := everythingChildren(servePID); n != 1 {
		t.Fatalf("serve runs %d server-everything processes, want 1", n)
	}
	if r := runBin(t, bin, dir, "", "provider", "list"); r.code != 0 || !strings.Contains(r.stdout, "fake") {
		t.Fatalf("provider list through serve: %+v", r)
	}
	// The per-tool choices go through the facade the window uses: serve's Settings → MCP
	// and Settings → Tools see them at once.
	if r := runBin(t, bin, dir, "", "mcp", "approval", "everything", "toggle-simulated-logging", "allow"); r.code != 0 ||
		!strings.Contains(r.stdout, "runs without asking") {
		t.Fatalf("mcp approval through serve: %+v", r)
	}
	if r := runBin(t, bin, dir, "", "mcp", "disable", "everything", "echo"); r.code != 0 {
		t.Fatalf("mcp disable TOOL through serve: %+v", r)
	}
	var snap mcp.Snapshot
	serve.call(t, "ListMCPServers", &snap)
	seen := map[string]mcp.ToolInfo{}
	for _, v := range snap.Servers {
		for _, ti := range v.Tools {
			seen[ti.Name] = ti
		}
	}
	if seen["toggle-simulated-logging"].Approval != mcp.ApprovalAllow || seen["echo"].Enabled || !seen["get-env"].Enabled {
		t.Fatalf("serve's view after the commands: %+v", seen)
	}
	var panel tools.ToolsSnapshot
	serve.call(t, "ListTools", &panel)
	for _, st := range panel.Tools {
		if st.Name == seen["echo"].WireName && st.Enabled {
			t.Fatalf("Settings → Tools still has echo on: %+v", st)
		}
	}
}

// TestOwnerKilledWhileTerminalApprovalWaits: serve is killed while a terminal chat's
// approval waits; the terminal says the owner stopped answering, and the next serve
// recovers the chat as after any crash (the request and the answer interrupted).
func TestOwnerKilledWhileTerminalApprovalWaits(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	setUpGatedTool(t, dir)
	serve := startServeChild(t, bin, dir)
	tb := serve.openTab(t)

	cmd := exec.Command(bin, "--data-dir", dir, "chat", "--provider", "fake", "--approve", "ask", "toggle it")
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file", "LANG=en_US.UTF-8")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ev := tb.wait(t, "the approval request", func(ev events.Event) bool { return ev.Type == approval.EventRequested })
	var req approval.Request
	if err := json.Unmarshal(ev.Data, &req); err != nil {
		t.Fatal(err)
	}
	serve.cmd.Process.Signal(syscall.SIGKILL)
	serve.cmd.Wait()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "stopped answering") {
			t.Fatalf("the terminal chat after its owner died: %v\n%s", err, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the terminal chat went on waiting for a dead owner")
	}

	next := startServeChild(t, bin, dir)
	var reqs approval.Pending
	next.call(t, "ListSessionApprovals", &reqs, req.SessionID)
	if len(reqs.Requests) != 1 || reqs.Requests[0].Status != approval.StatusInterrupted {
		t.Fatalf("requests after the take-over: %+v", reqs.Requests)
	}
	var snap chat.Snapshot
	next.call(t, "GetSession", &snap, req.SessionID)
	if last := snap.Messages[len(snap.Messages)-1]; last.Status != chat.MessageInterrupted {
		t.Fatalf("the answer after the take-over: %s", last.Status)
	}
}

// opensDatabase reports whether process pid has the data directory's database open.
func opensDatabase(t *testing.T, pid int, dir string) bool {
	t.Helper()
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Fatalf("this test reads a process's open files through /proc: %v", err) // else "never opened" would pass unseen
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(target, dir+"/cairn.db") {
			return true
		}
	}
	return false
}

// TestCapabilityCommandRunsInTheOwner: a capability's command (`cairn fetch`) run while
// serve owns the directory runs in serve, on its services: the command's own process
// never opens the database, and its output and exit code are the command's.
func TestCapabilityCommandRunsInTheOwner(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	direct := runBin(t, bin, dir, "", "fetch", "http://127.0.0.1:9/")
	startServeChild(t, bin, dir)
	for _, args := range [][]string{{"fetch", "http://127.0.0.1:9/"}, {"fetch"}} {
		cmd := exec.Command(bin, append([]string{"--data-dir", dir}, args...)...)
		cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file", "LANG=en_US.UTF-8")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		opened := false
		for waiting := true; waiting; {
			select {
			case <-done:
				waiting = false
			case <-time.After(2 * time.Millisecond):
				opened = opened || opensDatabase(t, cmd.Process.Pid, dir)
			}
		}
		if opened {
			t.Fatalf("%v opened the database itself beside serve", args)
		}
		code := cmd.ProcessState.ExitCode()
		if args[0] == "fetch" && len(args) == 2 && (code != direct.code || errb.String() != direct.stderr) {
			t.Fatalf("through serve: exit %d %q; by itself: exit %d %q", code, errb.String(), direct.code, direct.stderr)
		}
		if len(args) == 1 && (code != 2 || !strings.Contains(errb.String(), "Usage: cairn fetch")) {
			t.Fatalf("usage through serve: exit %d %q", code, errb.String())
		}
	}
}

// TestCtrlCStopsAChatRunningInTheOwner: Ctrl-C on a terminal chat that runs in serve
// stops the answer there (what arrived is kept), as it does for a chat run by itself.
func TestCtrlCStopsAChatRunningInTheOwner(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	llm := llmtest.Start(t)
	llm.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: strings.Repeat("slow words ", 400), Delay: 20 * time.Millisecond}
	})
	if r := runBin(t, bin, dir, "", "provider", "add", "slow", "--base-url", llm.URL, "--model", "m"); r.code != 0 {
		t.Fatalf("provider add: %+v", r)
	}
	serve := startServeChild(t, bin, dir)
	tb := serve.openTab(t)
	cmd := exec.Command(bin, "--data-dir", dir, "chat", "--provider", "slow", "go on")
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file", "LANG=en_US.UTF-8")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ev := tb.wait(t, "the answer streaming", func(ev events.Event) bool { return ev.Type == chat.EventPartDelta })
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 130 || !strings.Contains(errb.String(), "[stopped; what arrived is kept]") {
		t.Fatalf("Ctrl-C: %v\n%s", err, errb.String())
	}
	sessionID := strings.TrimPrefix(ev.Topic, "session:")
	var snap chat.Snapshot
	serve.call(t, "GetSession", &snap, sessionID)
	if last := snap.Messages[len(snap.Messages)-1]; last.Status != chat.MessageStopped {
		t.Fatalf("the answer in serve after Ctrl-C: %s", last.Status)
	}
}
