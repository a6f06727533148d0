package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/assistants"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
	"github.com/cairn-app/cairn/backend/service"
)

func TestChatCommand(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	srv := llmtest.Start(t, llmtest.WithHandler(llmtest.Auto), llmtest.WithModels(llmtest.AutoModels()...))
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "fake-echo"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}

	r := run(t, dir, "", "chat", "hello", "world")
	if r.code != 0 || r.stdout != "You said: hello world\n" || !strings.Contains(r.stderr, "session ") {
		t.Fatalf("chat: %+v", r)
	}
	sessionID := strings.Fields(strings.SplitN(r.stderr, "\n", 2)[0])[1]

	// Reasoning goes to stderr, the answer alone to stdout.
	r = run(t, dir, "", "chat", "--session", sessionID, "--model", "fake-reasoning", "why?")
	if r.code != 0 || r.stdout != "The answer is 42.\n" || !strings.Contains(r.stderr, "[reasoning] The user wants an answer") {
		t.Fatalf("reasoning: %+v", r)
	}
	// The continued session sent the earlier turns.
	body := srv.Requests()[len(srv.Requests())-1].Body
	if len(body.Messages) != 3 || body.Messages[0].Content != "hello world" || body.Model != "fake-reasoning" {
		t.Fatalf("history = %+v", body.Messages)
	}

	// The prompt can come from stdin.
	r = run(t, dir, "piped prompt\n", "chat", "--model", "fake-echo")
	if r.code != 0 || r.stdout != "You said: piped prompt\n" {
		t.Fatalf("stdin prompt: %+v", r)
	}

	// --json: one event per line, the answer readable from its parts.
	r = run(t, dir, "", "chat", "--json", "--model", "fake-markdown", "md")
	if r.code != 0 {
		t.Fatalf("json: %+v", r)
	}
	var text strings.Builder
	types := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev events.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not one JSON event per line: %q", line)
		}
		types[ev.Type]++
		if ev.Type == chat.EventPartUpdated {
			var p chat.Part
			_ = json.Unmarshal(ev.Data, &p)
			if p.Type == chat.PartText && p.State == chat.PartDone {
				text.WriteString(p.Text)
			}
		}
	}
	if text.String() != llmtest.MarkdownAnswer || types[chat.EventPartDelta] == 0 || types[chat.EventMessageUpdated] != 1 {
		t.Fatalf("json events %v, text %q", types, text.String())
	}

	// A provider error is shown localized, with a non-zero exit.
	r = run(t, dir, "", "chat", "--model", "fake-401", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "cairn: ") {
		t.Fatalf("401: %+v", r)
	}
	if r := run(t, dir, "", "chat", "--provider", "nope", "hi"); r.code != 1 {
		t.Fatalf("unknown provider: %+v", r)
	}
	if r := run(t, dir, "", "chat"); r.code != 2 {
		t.Fatalf("no prompt: %+v", r)
	}

	// A message that cannot even start (this provider has no model) leaves no empty
	// conversation behind; a session given with --session is kept as it was.
	if r := run(t, dir, "", "provider", "add", "bare", "--base-url", srv.URL); r.code != 0 {
		t.Fatalf("add bare: %+v", r)
	}
	before := countSessions(t, dir)
	if r := run(t, dir, "", "chat", "--provider", "bare", "hi"); r.code == 0 || strings.Contains(r.stderr, "session ") {
		t.Fatalf("chat on a provider without a model: %+v", r)
	}
	if after := countSessions(t, dir); after != before {
		t.Fatalf("sessions %d → %d: the failed chat left one behind", before, after)
	}
	kept := getSession(t, dir, sessionID)
	if r := run(t, dir, "", "chat", "--session", sessionID, "--provider", "bare", "--model", "", "hi"); r.code == 0 {
		t.Fatalf("continue on a provider without a model: %+v", r)
	}
	if snap := getSession(t, dir, sessionID); len(snap.Messages) != len(kept.Messages) ||
		snap.Session.ProviderID != kept.Session.ProviderID || snap.Session.Model != kept.Session.Model {
		t.Fatalf("the failed chat changed the given session: provider %q model %q, %d messages; was %q %q, %d",
			snap.Session.ProviderID, snap.Session.Model, len(snap.Messages), kept.Session.ProviderID, kept.Session.Model, len(kept.Messages))
	}
}

// TestChatFromAssistant: --assistant starts the session from an assistant (built-in by id,
// a user's by name): its instructions and temperature reach the model, and --model
// changes what it set; it goes with neither --session nor --task.
func TestChatFromAssistant(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	srv := llmtest.Start(t, llmtest.WithHandler(llmtest.Auto), llmtest.WithModels(llmtest.AutoModels()...))
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "fake-echo"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	if r := run(t, dir, "", "chat", "--assistant", "translator", "Guten Morgen"); r.code != 0 || r.stdout != "You said: Guten Morgen\n" {
		t.Fatalf("chat --assistant: %+v", r)
	}
	body := srv.Requests()[len(srv.Requests())-1].Body
	if body.Temperature == nil || *body.Temperature != 0.3 || !strings.Contains(body.Messages[0].Content, "professional translator") {
		t.Fatalf("request = temperature %v, first message %q", body.Temperature, body.Messages[0].Content)
	}
	s := openServices(t, dir)
	if _, err := s.Assistants.Save(context.Background(), "", assistants.Input{Name: "Terse", Icon: "📝", Instructions: "Be terse."}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if r := run(t, dir, "", "chat", "--assistant", "terse", "--model", "fake-system", "hi"); r.code != 0 || !strings.Contains(r.stdout, "Be terse.") {
		t.Fatalf("chat --assistant by name with --model: %+v", r)
	}
	if r := run(t, dir, "", "chat", "--assistant", "nobody", "hi"); r.code != 1 || !strings.Contains(r.stderr, "nobody") {
		t.Fatalf("unknown assistant: %+v", r)
	}
	if r := run(t, dir, "", "chat", "--assistant", "translator", "--task", "hi"); r.code != 2 {
		t.Fatalf("--assistant with --task: %+v", r)
	}
}

func openServices(t *testing.T, dir string) *service.Services {
	t.Helper()
	s, err := service.Open(context.Background(), service.Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func countSessions(t *testing.T, dir string) int {
	t.Helper()
	l, err := openServices(t, dir).Chat.ListSessions(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return len(l.Sessions)
}

func getSession(t *testing.T, dir, id string) chat.Snapshot {
	t.Helper()
	snap, err := openServices(t, dir).Chat.GetSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestChatCrashRecovery builds the real binary, kills `cairn chat` with SIGKILL in the
// middle of a slow answer and reopens the data directory: the user message and the
// finished reasoning part are intact, the streamed text is a non-empty prefix of the
// answer, and the message is marked interrupted.
// TestChatAttach: --attach puts files on the message; a file that cannot be read is named
// on stderr, and the message goes without it and tells the model so.
func TestChatAttach(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir, files := t.TempDir(), t.TempDir()
	srv := llmtest.Start(t, llmtest.WithHandler(llmtest.Auto), llmtest.WithModels(llmtest.AutoModels()...))
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "fake-echo"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	notes, broken := filepath.Join(files, "notes.txt"), filepath.Join(files, "broken.pdf")
	if err := os.WriteFile(notes, []byte("The code word is lantern.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte("%PDF-1.4\ngarbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", "chat", "--attach", notes, "--attach", broken, "what is the word?")
	if r.code != 0 || !strings.Contains(r.stdout, "The code word is lantern.") || !strings.Contains(r.stdout, `<attachment name="broken.pdf" omitted="true">`) {
		t.Fatalf("chat --attach: %+v", r)
	}
	if !strings.Contains(r.stderr, "not attached: broken.pdf: ") {
		t.Fatalf("the refused file is not named on stderr: %q", r.stderr)
	}
	if r := run(t, dir, "", "chat", "--attach", filepath.Join(files, "missing.txt"), "hi"); r.code == 0 || !strings.Contains(r.stderr, "missing.txt") {
		t.Fatalf("a missing file: %+v", r)
	}
}

func TestChatCrashRecovery(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	bin := buildCairn(t)
	dir := t.TempDir()
	answer := strings.Repeat("streamed token ", 400)
	reasoning := "First I think, completely, before answering."
	srv := llmtest.Start(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Reasoning: reasoning, ChunkRunes: 15, Text: answer, Delay: 15 * time.Millisecond}
	})
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "slow"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}

	cmd := exec.Command(bin, "--data-dir", dir, "chat", "--provider", "fake", "tell me a long story")
	cmd.Env = append(os.Environ(), "CAIRN_SECRETS=file")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	printed := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stdout)
		var got strings.Builder
		buf := make([]byte, 256)
		for got.Len() < 150 {
			n, err := br.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				break
			}
		}
		printed <- got.String()
		_, _ = io.Copy(io.Discard, br)
	}()
	var seen string
	select {
	case seen = <-printed:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no streamed output")
	}
	time.Sleep(300 * time.Millisecond)         // a few flush intervals pass, the answer goes on
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !strings.HasPrefix(answer, seen) {
		t.Fatalf("printed %q is not a prefix of the answer", seen)
	}

	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.Chat.ListSessions(ctx, "")
	if err != nil || len(list.Sessions) != 1 {
		t.Fatalf("sessions: %+v %v", list, err)
	}
	snap, err := s.Chat.GetSession(ctx, list.Sessions[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Messages) != 2 || snap.State != chat.StateIdle {
		t.Fatalf("messages = %+v", snap.Messages)
	}
	user, asst := snap.Messages[0], snap.Messages[1]
	if user.Parts[0].Text != "tell me a long story" || user.Status != chat.MessageComplete {
		t.Fatalf("user message = %+v", user)
	}
	if asst.Status != chat.MessageInterrupted || len(asst.Parts) != 2 {
		t.Fatalf("assistant = %s with %d parts", asst.Status, len(asst.Parts))
	}
	rp, tp := asst.Parts[0], asst.Parts[1]
	if rp.Type != chat.PartReasoning || rp.Text != reasoning || rp.State != chat.PartDone {
		t.Fatalf("reasoning part = %+v", rp)
	}
	if tp.Type != chat.PartText || tp.State != chat.PartDone || !strings.HasPrefix(answer, tp.Text) || len(tp.Text) < len(seen)/2 || len(tp.Text) == len(answer) {
		t.Fatalf("text part: %d bytes (printed %d before the kill, answer %d): %q", len(tp.Text), len(seen), len(answer), tp.Text)
	}
	t.Logf("printed %d bytes before the kill; %d bytes survived in the database", len(seen), len(tp.Text))
}

// buildCairn builds the cairn binary (CLI build, no desktop window) for tests that must
// run or kill a real process. It is built once per test run (linking it takes seconds)
// and removed by TestMain.
func buildCairn(t *testing.T) string {
	t.Helper()
	cairnOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cairn-cli-test-")
		if err != nil {
			cairnErr = err
			return
		}
		cairnDir = dir
		bin := filepath.Join(dir, "cairn")
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		build := exec.Command("go", "build", "-o", bin, "github.com/cairn-app/cairn")
		build.Dir = filepath.Join("..", "..")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			cairnErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		cairnBin = bin
	})
	if cairnErr != nil {
		t.Fatal(cairnErr)
	}
	return cairnBin
}

// The test binary's one build of cairn (buildCairn).
var (
	cairnOnce          sync.Once
	cairnBin, cairnDir string
	cairnErr           error
)

func TestMain(m *testing.M) {
	// doctor's and serve's sandbox probe re-executes this binary as the helper, as the
	// Cairn binary is: without this it would run the tests again and the probe time out
	if code, ok := confine.Entry(os.Args); ok {
		os.Exit(code)
	}
	code := m.Run()
	if cairnDir != "" {
		_ = os.RemoveAll(cairnDir)
	}
	os.Exit(code)
}
