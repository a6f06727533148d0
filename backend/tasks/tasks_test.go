package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

func newService(t *testing.T, cfg Config) *Service {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// blocking is a run that writes text and waits for its context to end.
func blocking(text string) RunFunc {
	return func(ctx context.Context, out io.Writer) (Result, error) {
		io.WriteString(out, text)
		<-ctx.Done()
		return Result{ExitCode: 143}, nil
	}
}

func waitEnded(t *testing.T, s *Service, session, id string) Task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tk, err := s.Get(session, id)
		if err != nil {
			t.Fatal(err)
		}
		if tk.Ended() {
			return tk
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s did not end", id)
	return Task{}
}

func TestStartReadsAndEnds(t *testing.T) {
	cases := []struct {
		name  string
		res   Result
		err   error
		state State
		code  *int
		text  string
	}{
		{"exit 0", Result{ExitCode: 0}, nil, StateDone, ptr(0), "done (exit code 0)"},
		{"exit 3", Result{ExitCode: 3}, nil, StateFailed, ptr(3), "failed (exit code 3)"},
		{"error", Result{}, fmt.Errorf("boom"), StateFailed, nil, "failed (boom)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newService(t, Config{})
			release := make(chan struct{})
			tk, err := s.Start(context.Background(), Spec{SessionID: "s1", CallID: "c1", Kind: "bash", Title: "make"},
				func(ctx context.Context, out io.Writer) (Result, error) {
					io.WriteString(out, "first\n")
					<-release
					io.WriteString(out, "second\n")
					return c.res, c.err
				})
			if err != nil || tk.State != StateRunning || !strings.HasPrefix(tk.ID, "task_") {
				t.Fatalf("start: %+v %v", tk, err)
			}
			deadline := time.Now().Add(5 * time.Second)
			var r Read
			for r.Text == "" && time.Now().Before(deadline) {
				if r, err = s.Read(context.Background(), "s1", tk.ID, 0); err != nil {
					t.Fatal(err)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if r.Text != "first\n" || r.Task.State != StateRunning {
				t.Fatalf("running read: %+v", r)
			}
			close(release)
			r, err = s.Read(context.Background(), "s1", tk.ID, 5*time.Second)
			if err != nil || r.Text != "second\n" || r.Task.State != c.state || !sameCode(r.Task.ExitCode, c.code) {
				t.Fatalf("read after end: %+v %v", r, err)
			}
			if got := ReadText(r); !strings.Contains(got, c.text) || !strings.Contains(got, "second") {
				t.Fatalf("model reads %q", got)
			}
			if r, _ = s.Read(context.Background(), "s1", tk.ID, 0); r.Text != "" || !strings.Contains(ReadText(r), "No new output") {
				t.Fatalf("second read: %+v", r)
			}
			if out, _ := s.Output("s1", tk.ID); out.Text != "first\nsecond\n" {
				t.Fatalf("window output %q", out.Text)
			}
			if u := s.Unreported("s1"); len(u) != 0 {
				t.Fatalf("a read that saw the end still leaves it unreported: %+v", u)
			}
		})
	}
}

func ptr(n int) *int { return &n }

func sameCode(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// TestOutputPaging: the kept head and tail with the dropped middle said, the read
// position across the gap, pages of at most the limit, and UTF-8 never cut in a page of a
// running task.
func TestOutputPaging(t *testing.T) {
	o := output{headMax: 4, tailMax: 4}
	o.write([]byte("abcdefghij")) // head abcd, tail ghij: ef dropped
	if string(o.Head) != "abcd" || string(o.Tail) != "ghij" || o.dropped() != 2 {
		t.Fatalf("head %q tail %q dropped %d", o.Head, o.Tail, o.dropped())
	}
	cases := []struct {
		off   int64
		limit int
		text  string
		next  int64
		drop  int64
		more  bool
	}{
		{0, 0, "abcd\n… [2 bytes of output dropped] …\nghij", 10, 2, false},
		{2, 0, "cd\n… [2 bytes of output dropped] …\nghij", 10, 2, false},
		{5, 0, "\n… [1 bytes of output dropped] …\nghij", 10, 1, false},
		{7, 0, "hij", 10, 0, false},
		{10, 0, "", 10, 0, false},
		{0, 3, "abc", 3, 0, true},
		{0, 6, "abcd\n… [2 bytes of output dropped] …\ngh", 8, 2, true},
	}
	for _, c := range cases {
		p := o.from(c.off, c.limit, true)
		if p.Text != c.text || p.Next != c.next || p.Dropped != c.drop || p.More != c.more {
			t.Errorf("from(%d, %d) = %+v, want %q next %d dropped %d more %v", c.off, c.limit, p, c.text, c.next, c.drop, c.more)
		}
	}
	u := output{headMax: 64, tailMax: 64}
	u.write([]byte("ok é"[:4])) // "ok " and the first byte of é
	if p := u.from(0, 0, false); p.Text != "ok " || p.Next != 3 {
		t.Fatalf("running page cut a rune: %+v", p)
	}
	u.write([]byte("ok é"[4:]))
	if p := u.from(3, 0, false); p.Text != "é" || p.Next != 5 {
		t.Fatalf("next page: %+v", p)
	}

	s := newService(t, Config{HeadBytes: 8, TailBytes: PageBytes * 2})
	big := strings.Repeat("x", PageBytes+100)
	tk, err := s.Start(context.Background(), Spec{SessionID: "s1", Kind: "bash", Title: "big"}, func(ctx context.Context, out io.Writer) (Result, error) {
		io.WriteString(out, big)
		return Result{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	waitEnded(t, s, "s1", tk.ID)
	r1, _ := s.Read(context.Background(), "s1", tk.ID, 0)
	r2, _ := s.Read(context.Background(), "s1", tk.ID, 0)
	if len(r1.Text) != PageBytes || !r1.More || !strings.Contains(ReadText(r1), "call task_output again") || len(r2.Text) != 100 || r2.More {
		t.Fatalf("pages of %d (more %v) and %d (more %v)", len(r1.Text), r1.More, len(r2.Text), r2.More)
	}
	if len(s.Unreported("s1")) != 0 {
		t.Fatal("the last page did not count as the model being told")
	}
}

// TestStopAndOtherSessions: Stop ends the run's context and records stopped; another
// session's calls cannot see, read or stop the task; a run that ignores its context is
// recorded as stopped after the grace.
func TestStopAndOtherSessions(t *testing.T) {
	s := newService(t, Config{StopGrace: 200 * time.Millisecond})
	ctx := context.Background()
	tk, err := s.Start(ctx, Spec{SessionID: "s1", Kind: "bash", Title: "serve"}, blocking("listening\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func() error{
		func() error { _, err := s.Get("s2", tk.ID); return err },
		func() error { _, err := s.Read(ctx, "s2", tk.ID, 0); return err },
		func() error { _, err := s.Stop(ctx, "s2", tk.ID); return err },
		func() error { _, err := s.Output("s2", tk.ID); return err },
		func() error { _, err := s.Get("s1", "task_nope"); return err },
	} {
		if err := f(); !apperr.Is(err, apperr.TaskNotFound) {
			t.Fatalf("another session reached the task: %v", err)
		}
	}
	if l := s.List("s2"); len(l.Tasks) != 0 {
		t.Fatalf("s2 lists %+v", l.Tasks)
	}
	got, err := s.Stop(ctx, "s1", tk.ID)
	if err != nil || got.State != StateStopped || got.ExitCode == nil || *got.ExitCode != 143 || got.EndedAt == 0 {
		t.Fatalf("stop: %+v %v", got, err)
	}
	stubborn, _ := s.Start(ctx, Spec{SessionID: "s1", Kind: "agent", Title: "deaf"}, func(context.Context, io.Writer) (Result, error) {
		time.Sleep(2 * time.Second)
		return Result{}, nil
	})
	start := time.Now()
	if got, _ := s.Stop(ctx, "s1", stubborn.ID); got.State != StateStopped || time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("a run that ignores its context: %+v after %s", got, time.Since(start))
	}
	if l := s.List("s1"); len(l.Tasks) != 2 || l.Tasks[0].ID != stubborn.ID {
		t.Fatalf("list %+v", l.Tasks)
	}
}

func TestRunningLimit(t *testing.T) {
	s := newService(t, Config{})
	for i := 0; i < MaxRunningPerSession; i++ {
		if _, err := s.Start(context.Background(), Spec{SessionID: "s1", Kind: "bash"}, blocking("")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Start(context.Background(), Spec{SessionID: "s1", Kind: "bash"}, blocking("")); !apperr.Is(err, apperr.TaskLimit) {
		t.Fatalf("one more: %v", err)
	}
	if _, err := s.Start(context.Background(), Spec{SessionID: "s2", Kind: "bash"}, blocking("")); err != nil {
		t.Fatalf("another session: %v", err)
	}
	if _, err := s.Start(context.Background(), Spec{SessionID: "../x", Kind: "bash"}, blocking("")); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("a session id that cannot name a folder: %v", err)
	}
}

// TestRestartMarksInterrupted: a task whose process is gone (a crash: the service never
// closed; here an earlier service of this process, and a record of a dead PID) is
// interrupted at the next open, never running, with the output it had written; a
// finished task's output survives a restart; Close records running tasks as interrupted.
func TestRestartMarksInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first, err := New(ctx, Config{Dir: dir, SaveEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	done, _ := first.Start(ctx, Spec{SessionID: "s1", Kind: "bash", Title: "echo"}, func(_ context.Context, out io.Writer) (Result, error) {
		io.WriteString(out, "finished output\n")
		return Result{}, nil
	})
	waitEnded(t, first, "s1", done.ID)
	crashed, _ := first.Start(ctx, Spec{SessionID: "s1", Kind: "bash", Title: "sleep"}, blocking("partial\n"))
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(readFile(t, filepath.Join(dir, "s1", crashed.ID+".json")), "cGFydGlhbAo") { // base64 of "partial\n"
		if time.Now().After(deadline) {
			t.Fatal("the running output was never written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	dead := writeDeadOwnerTask(t, dir)

	second := newService(t, Config{Dir: dir})
	for id, want := range map[string]string{done.ID: "finished output\n", crashed.ID: "partial\n", dead: "gone\n"} {
		out, err := second.Output("s1", id)
		if err != nil || out.Text != want {
			t.Fatalf("%s after the restart: %+v %v", id, out, err)
		}
	}
	for _, id := range []string{crashed.ID, dead} {
		if tk, _ := second.Get("s1", id); tk.State != StateInterrupted || tk.EndedAt == 0 || !strings.Contains(StateText(tk), "Cairn closed") {
			t.Fatalf("%s: %+v", id, tk)
		}
	}
	if tk, _ := second.Get("s1", done.ID); tk.State != StateDone {
		t.Fatalf("the finished task: %+v", tk)
	}
	if u := second.Unreported("s1"); len(u) != 3 {
		t.Fatalf("unreported after the restart: %+v", u)
	}
	second.MarkReported("s1", []string{done.ID, crashed.ID, dead})
	if u := second.Unreported("s1"); len(u) != 0 {
		t.Fatalf("still unreported: %+v", u)
	}

	running, _ := second.Start(ctx, Spec{SessionID: "s2", Kind: "bash"}, blocking(""))
	second.Close()
	third := newService(t, Config{Dir: dir})
	if tk, _ := third.Get("s2", running.ID); tk.State != StateInterrupted {
		t.Fatalf("closed while running: %+v", tk)
	}
	if u := third.Unreported("s1"); len(u) != 0 {
		t.Fatalf("the reports were not kept: %+v", u)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return string(b)
}

// writeDeadOwnerTask writes a running task of a process that has exited.
func writeDeadOwnerTask(t *testing.T, dir string) string {
	t.Helper()
	p, err := os.StartProcess(os.Args[0], []string{os.Args[0], "-test.run=^$"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := pidcheck.StartTime(p.Pid)
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	tf := taskFile{Record: record{Task: Task{ID: "task_dead", SessionID: "s1", Kind: "bash", Title: "x", State: StateRunning,
		StartedAt: 1}, Owner: pidcheck.Owner{PID: p.Pid, Start: st}}, Output: output{Head: []byte("gone\n"), Total: 5}}
	b, _ := json.Marshal(tf)
	if err := os.WriteFile(filepath.Join(dir, "s1", "task_dead.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return "task_dead"
}

// TestDeletedSessionForgetsItsTasks: chat's sessions:removed stops the session's tasks
// and removes them with their files; other sessions keep theirs.
func TestDeletedSessionForgetsItsTasks(t *testing.T) {
	bus := events.NewBus()
	defer bus.Close()
	s := newService(t, Config{Bus: bus})
	ctx := context.Background()
	stopped := make(chan struct{})
	gone, _ := s.Start(ctx, Spec{SessionID: "s1", Kind: "bash"}, func(ctx context.Context, _ io.Writer) (Result, error) {
		<-ctx.Done()
		close(stopped)
		return Result{}, nil
	})
	kept, _ := s.Start(ctx, Spec{SessionID: "s2", Kind: "bash"}, blocking(""))
	bus.Publish(events.TopicSessions, "sessions:removed", map[string]string{"sessionId": "s1"})
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the deleted session's task still runs")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := s.Get("s1", gone.ID)
		_, statErr := os.Stat(filepath.Join(s.cfg.Dir, "s1"))
		if apperr.Is(err, apperr.TaskNotFound) && os.IsNotExist(statErr) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not forgotten: %v %v", err, statErr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if tk, err := s.Get("s2", kept.ID); err != nil || tk.State != StateRunning {
		t.Fatalf("the other session's task: %+v %v", tk, err)
	}
}

// TestEventsFollowATask: the session's topic hears the start, the growing output and the
// end.
func TestEventsFollowATask(t *testing.T) {
	bus := events.NewBus()
	defer bus.Close()
	sub := bus.Subscribe(256)
	defer sub.Close()
	s := newService(t, Config{Bus: bus})
	release := make(chan struct{})
	tk, _ := s.Start(context.Background(), Spec{SessionID: "s1", Kind: "bash"}, func(ctx context.Context, out io.Writer) (Result, error) {
		io.WriteString(out, "a")
		<-release
		return Result{}, nil
	})
	var seen []Task
	released := false
	timeout := time.After(5 * time.Second)
	for len(seen) == 0 || !seen[len(seen)-1].Ended() {
		select {
		case ev := <-sub.C:
			if ev.Topic != Topic("s1") || ev.Type != EventUpdated {
				continue
			}
			var v Task
			_ = json.Unmarshal(ev.Data, &v)
			seen = append(seen, v)
			if v.OutputBytes == 1 && v.State == StateRunning && !released {
				close(release)
				released = true
			}
		case <-timeout:
			t.Fatalf("events %+v", seen)
		}
	}
	if seen[0].ID != tk.ID || seen[0].State != StateRunning || seen[len(seen)-1].State != StateDone || len(seen) < 3 {
		t.Fatalf("events %+v", seen)
	}
	if l := s.List("s1"); l.Seq != bus.Seq(Topic("s1")) {
		t.Fatalf("list seq %d, topic %d", l.Seq, bus.Seq(Topic("s1")))
	}
}
