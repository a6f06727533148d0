package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/tasks"
	"github.com/cairn-app/cairn/backend/tools"
)

// Background starts work that outlives the call that starts it (*tasks.Service).
type Background interface {
	Start(ctx context.Context, spec tasks.Spec, run tasks.RunFunc) (tasks.Task, error)
}

// peerBackground finds the tasks capability's service when a call needs it (capabilities
// open one after another, so it may open after the sandbox).
type peerBackground struct{ peer func(name string) any }

func (p peerBackground) Start(ctx context.Context, spec tasks.Spec, run tasks.RunFunc) (tasks.Task, error) {
	var b Background
	if p.peer != nil {
		b, _ = p.peer(tasks.Name).(Background)
	}
	if b == nil {
		return tasks.Task{}, errors.New("background tasks are not available in this Cairn")
	}
	return b.Start(ctx, spec, run)
}

// started is how a background command's start went, told back to the call.
type started struct {
	level Level
	err   error
}

// startBackground runs the command as a background task: confined as any command (the
// same Engine.Start at place p), on the task's context (task_stop, the session's
// deletion and Cairn's close end it, and timeout does), its stdout and stderr in the
// task's output. It returns once the command started, with the task's id.
func (s *Service) startBackground(ctx context.Context, in BashInput, p Place, level Level, timeout time.Duration) (tools.Result, error) {
	if s.background == nil {
		return tools.Result{}, errors.New("background tasks are not available in this Cairn")
	}
	call, _ := tools.CallFromContext(ctx)
	session := call.SessionID
	if session == "" {
		session = call.Scope.SessionID
	}
	ready := make(chan started, 1)
	run := func(tctx context.Context, out io.Writer) (tasks.Result, error) {
		return s.runInBackground(tctx, in.Command, p, timeout, out, ready)
	}
	task, err := s.background.Start(ctx, tasks.Spec{SessionID: session, CallID: call.ID, Kind: "bash", Title: backgroundTitle(in.Command)}, run)
	if err != nil {
		return tools.Result{}, err
	}
	var st started
	select {
	case st = <-ready:
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	if st.err != nil {
		return tools.Result{}, fmt.Errorf("start the command in the sandbox: %w", st.err)
	}
	if st.level != "" {
		level = st.level
	}
	r := BashResult{Level: level, Command: in.Command, Cwd: in.Cwd, TaskID: task.ID}
	text := fmt.Sprintf("Started in the background as task %s (sandbox: %s). Read its output with task_output "+
		"{\"id\": %q} (wait_seconds waits for it to end); stop it with task_stop. It is killed after %s.", task.ID, level, task.ID, timeout)
	return tools.Result{Content: text, Display: display(r)}, nil
}

// runInBackground is a background command's run: start it, tell ready, copy its output,
// and end with its exit code; a timeout is said in the output.
func (s *Service) runInBackground(ctx context.Context, command string, p Place, timeout time.Duration, out io.Writer, ready chan<- started) (tasks.Result, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	proc, err := s.engine.Start(runCtx, p, shellArgv(command), nil)
	if err != nil {
		ready <- started{err: err}
		return tasks.Result{}, fmt.Errorf("start the command in the sandbox: %w", err)
	}
	ready <- started{level: proc.Level()}
	stopWatch := watch(runCtx, proc)
	defer stopWatch()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(out, proc.Stdout()) }()
	go func() { defer wg.Done(); _, _ = io.Copy(out, proc.Stderr()) }()
	wg.Wait()
	code, werr := proc.Wait()
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		fmt.Fprintf(out, "\n[Killed after %s (timeout), with everything it started.]\n", timeout)
		return tasks.Result{ExitCode: code}, nil
	}
	if werr != nil && ctx.Err() == nil {
		return tasks.Result{}, fmt.Errorf("wait for the command: %w", werr)
	}
	return tasks.Result{ExitCode: code}, nil
}

// backgroundTitle is a command's first line, for the task's title.
func backgroundTitle(command string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(command), "\n")
	return line
}
