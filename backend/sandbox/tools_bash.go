package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/tools"
)

// Bounds of a command.
const (
	DefaultBashTimeout = 2 * time.Minute
	MaxBashTimeout     = 10 * time.Minute
	// HeadBytes and TailBytes of each stream are kept; what lies between is dropped and
	// its size said.
	HeadBytes = 24 << 10
	TailBytes = 24 << 10
	// progressAfter is how long a command runs before its output is streamed as progress.
	progressAfter = 2 * time.Second
)

// BashInput are sandbox_bash's arguments.
type BashInput struct {
	Command     string `json:"command" jsonschema:"the shell command line (bash), run in the workspace inside the sandbox"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"seconds before the command and everything it started are killed (default 120, at most 600)"`
	Cwd         string `json:"cwd,omitempty" jsonschema:"working directory relative to the workspace (default: the workspace)"`
	Description string `json:"description,omitempty" jsonschema:"what the command does, in a few words, for the user"`
	// RunInBackground starts the command as a background task and returns its id at once.
	RunInBackground bool `json:"run_in_background,omitempty" jsonschema:"start the command as a background task and return its id at once (for servers, watchers, long builds); read it with task_output, end it with task_stop"`
}

func (s *Service) bashTool() tools.Entry {
	return tools.Typed(tools.TypedTool[BashInput]{
		Name: BashTool,
		Description: "Run a shell command (bash) in the workspace, inside the sandbox: the network is off, files outside the " +
			"workspace are out of reach, and the whole process tree is killed at the timeout. Returns the exit code, stdout " +
			"and stderr (long output keeps its head and tail). With run_in_background it returns a task id at once and the command " +
			"keeps running (read it with task_output, end it with task_stop). Prefer sandbox_read/grep/find for reading files.",
		SearchHint:   "shell terminal run command exec script test build",
		ProgressKind: "bash",
		Cancellable:  true,
		Timeout:      MaxBashTimeout + 30*time.Second,
		Refine:       bounds(map[string][2]float64{"timeout": {1, MaxBashTimeout.Seconds()}}),
		Validate: func(_ context.Context, in BashInput) error {
			if strings.TrimSpace(in.Command) == "" {
				return errors.New("command is empty")
			}
			if !relativeInside(in.Cwd) {
				return fmt.Errorf("cwd %q must be a folder inside the workspace, given relative to it", in.Cwd)
			}
			return nil
		},
		Touches: func(in BashInput) tools.Touches { return tools.Touches{Commands: []string{in.Command}} },
		Run:     s.runBash,
	})
}

// DefaultBackgroundTimeout bounds a background command that names no timeout of its own.
const DefaultBackgroundTimeout = time.Hour

// relativeInside reports whether p is empty or a relative path that stays below where it
// starts (the lexical check; the sandbox is the real one).
func relativeInside(p string) bool {
	if p == "" {
		return true
	}
	c := filepath.ToSlash(filepath.Clean(p))
	return !filepath.IsAbs(p) && c != ".." && !strings.HasPrefix(c, "../")
}

// BashResult is a command's end as the tool card shows it.
type BashResult struct {
	Level    Level  `json:"level"`
	Command  string `json:"command"`
	Cwd      string `json:"cwd,omitempty"`
	ExitCode int    `json:"exitCode"`
	TimedOut bool   `json:"timedOut,omitempty"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// Dropped are the bytes left out of the middle of stdout and stderr.
	Dropped    int64 `json:"dropped,omitempty"`
	DurationMs int64 `json:"durationMs"`
	// TaskID is the background task the command runs as (run_in_background): the rest
	// of its end is the task's.
	TaskID string `json:"taskId,omitempty"`
}

func (s *Service) runBash(ctx context.Context, in BashInput, progress func(tools.Progress)) (tools.Result, error) {
	cwd := filepath.Clean(in.Cwd)
	if in.Cwd == "" {
		cwd = "."
	}
	p, level, err := s.place(ctx, cwd)
	if err != nil {
		return tools.Result{}, err
	}
	timeout := DefaultBashTimeout
	if in.Timeout > 0 {
		timeout = min(time.Duration(in.Timeout)*time.Second, MaxBashTimeout)
	}
	if in.RunInBackground {
		if in.Timeout <= 0 {
			timeout = DefaultBackgroundTimeout
		}
		return s.startBackground(ctx, in, p, level, timeout)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	proc, err := s.engine.Start(runCtx, p, shellArgv(in.Command), nil)
	if err != nil {
		return tools.Result{}, fmt.Errorf("start the command in the sandbox: %w", err)
	}
	if l := proc.Level(); l != "" {
		level = l
	}
	out, errOut := newCapture(), newCapture()
	stopWatch := watch(runCtx, proc)
	stopProgress := streamProgress(progress, out, errOut)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(out, proc.Stdout()) }()
	go func() { defer wg.Done(); _, _ = io.Copy(errOut, proc.Stderr()) }()
	wg.Wait()
	code, werr := proc.Wait()
	stopWatch()
	stopProgress()
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	r := BashResult{Level: level, Command: in.Command, Cwd: in.Cwd, ExitCode: code, Stdout: out.String(), Stderr: errOut.String(),
		Dropped: out.dropped() + errOut.dropped(), DurationMs: time.Since(start).Milliseconds(),
		TimedOut: errors.Is(runCtx.Err(), context.DeadlineExceeded)}
	if werr != nil && !r.TimedOut {
		return tools.Result{}, fmt.Errorf("wait for the command: %w", werr)
	}
	return tools.Result{Content: bashText(r, timeout), Display: display(r), IsError: false}, nil
}

// watch kills the process tree when ctx ends (timeout, stop); the returned func ends the
// watch.
func watch(ctx context.Context, proc Process) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = proc.Kill()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// shellArgv is the command line run by bash, or sh where there is no bash.
func shellArgv(command string) []string {
	for _, sh := range []string{"/bin/bash", "/usr/bin/bash"} {
		if _, err := os.Stat(sh); err == nil {
			return []string{sh, "-c", command}
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return []string{p, "-c", command}
	}
	return []string{"/bin/sh", "-c", command}
}

// bashText is the command's end as the model reads it.
func bashText(r BashResult, timeout time.Duration) string {
	var b strings.Builder
	if r.TimedOut {
		fmt.Fprintf(&b, "The command was killed after %s (timeout), with everything it started.\n", timeout)
	}
	fmt.Fprintf(&b, "Exit code: %d (sandbox: %s)\n", r.ExitCode, r.Level)
	if r.Stdout != "" {
		fmt.Fprintf(&b, "\nstdout:\n%s", r.Stdout)
		if !strings.HasSuffix(r.Stdout, "\n") {
			b.WriteString("\n")
		}
	}
	if r.Stderr != "" {
		fmt.Fprintf(&b, "\nstderr:\n%s", r.Stderr)
	}
	if r.Stdout == "" && r.Stderr == "" {
		b.WriteString("(no output)")
	}
	return strings.TrimRight(b.String(), "\n")
}

// capture keeps the head and the tail of a stream and counts what it drops between.
type capture struct {
	mu    sync.Mutex
	head  []byte
	tail  []byte // a ring of the last TailBytes once the head is full
	total int64
}

func newCapture() *capture { return &capture{} }

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	rest := p
	if room := HeadBytes - len(c.head); room > 0 {
		n := min(room, len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		c.tail = append(c.tail, rest...)
		if over := len(c.tail) - TailBytes; over > 0 {
			c.tail = append(c.tail[:0], c.tail[over:]...)
		}
	}
	return len(p), nil
}

func (c *capture) dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total - int64(len(c.head)) - int64(len(c.tail))
}

// String is the head, a line saying how much was dropped, and the tail.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.ToValidUTF8(string(c.head), "\uFFFD")
	if d := c.total - int64(len(c.head)) - int64(len(c.tail)); d > 0 {
		s += fmt.Sprintf("\n… [%d bytes of output dropped] …\n", d)
	}
	return s + strings.ToValidUTF8(string(c.tail), "\uFFFD")
}

// last is the end of what was written, for progress.
func (c *capture) last(n int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	src := c.tail
	if len(src) == 0 {
		src = c.head
	}
	if len(src) > n {
		src = src[len(src)-n:]
	}
	return strings.ToValidUTF8(string(src), "")
}

// streamProgress reports the output's last lines every second once the command has run
// for progressAfter; the returned func stops it.
func streamProgress(progress func(tools.Progress), out, errOut *capture) func() {
	if progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(progressAfter)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			text := lastLines(out.last(4096)+errOut.last(1024), 8)
			progress(tools.Progress{Kind: "bash", Message: text})
			t.Reset(time.Second)
		}
	}()
	return func() { close(done); wg.Wait() }
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
