// Package tasks runs work that outlives the tool call that started it: a sandbox_bash
// command with run_in_background, a sub-agent run in the background. The Service keeps
// each task's output (its head and tail, capped) and its state in files under the data
// directory, so a finished task's output survives a restart and a task whose process died
// with Cairn is shown as interrupted, never as running. The model reads a task with
// task_output, ends it with task_stop, and is told when one it started finished (chat's
// notices, see Unreported).
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

// State is where a task is in its life.
type State string

// The states: running; done (ended by itself with exit code 0); failed (a non-zero exit
// code or an error); stopped (task_stop, the window's Stop, its session deleted);
// interrupted (Cairn closed or died while it ran).
const (
	StateRunning     State = "running"
	StateDone        State = "done"
	StateFailed      State = "failed"
	StateStopped     State = "stopped"
	StateInterrupted State = "interrupted"
)

// Bounds of the service.
const (
	// DefaultHeadBytes and DefaultTailBytes of a task's output are kept; what lies
	// between is dropped and its size said.
	DefaultHeadBytes = 32 << 10
	DefaultTailBytes = 96 << 10
	// PageBytes is the most one task_output read returns; the rest waits for the next.
	PageBytes = 32 << 10
	// MaxRunningPerSession bounds the tasks one session runs at once.
	MaxRunningPerSession = 8
	// MaxWait is the longest task_output waits for a task to end.
	MaxWait = 5 * time.Minute
	// publishEvery bounds task:updated events of a task whose output grows.
	publishEvery = 300 * time.Millisecond
)

// Event types on the topic of a session's tasks (Topic).
const (
	// EventUpdated carries a Task: started, its output grew, or it ended.
	EventUpdated = "task:updated"
	// EventRemoved carries a Task that is gone (its session was deleted).
	EventRemoved = "task:removed"
)

// Topic is the bus topic of one session's tasks.
func Topic(sessionID string) string { return "tasks:" + sessionID }

// Spec describes a task to start.
type Spec struct {
	// SessionID is the session the task belongs to; only its calls see the task. Required.
	SessionID string
	// CallID is the tool call that started it (its card links to the task).
	CallID string
	// Kind says what runs: "bash", "agent".
	Kind string
	// Title is one line for people and the model: the command, the agent's description.
	Title string
}

// Result is how a task's run ended by itself.
type Result struct {
	// ExitCode of the command (0: done; anything else: failed).
	ExitCode int
	// Summary is a last text for the model beside the output (an agent's final answer).
	Summary string
}

// RunFunc is a task's work. It runs on a context of its own (not the starting call's)
// that ends when the task is stopped, its session is deleted or Cairn closes, and must
// return soon after; out keeps what it writes (safe for concurrent writes).
type RunFunc func(ctx context.Context, out io.Writer) (Result, error)

// Task is one background task as the window and the tools see it.
type Task struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	CallID    string `json:"callId,omitempty"`
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	State     State  `json:"state"`
	// ExitCode is set once a command ended with one.
	ExitCode *int `json:"exitCode,omitempty"`
	// Error says why a failed task failed, when it was not its exit code.
	Error   string `json:"error,omitempty"`
	Summary string `json:"summary,omitempty"`
	// StartedAt and EndedAt are unix milliseconds (EndedAt 0 while it runs).
	StartedAt int64 `json:"startedAt"`
	EndedAt   int64 `json:"endedAt,omitempty"`
	// OutputBytes is how much it wrote; Dropped how much of that is no longer kept.
	OutputBytes int64 `json:"outputBytes"`
	Dropped     int64 `json:"dropped,omitempty"`
}

// Ended reports whether the task no longer runs.
func (t Task) Ended() bool { return t.State != StateRunning }

// List is a session's tasks, newest first, with the topic's seq.
type List struct {
	Tasks []Task `json:"tasks"`
	Seq   uint64 `json:"seq"`
}

// Output is a task with its kept output, as the window shows it.
type Output struct {
	Task Task   `json:"task"`
	Text string `json:"text"`
}

// Read is what one task_output call returns: the task and the output since the
// previous read.
type Read struct {
	Task Task `json:"task"`
	Page
}

// Config wires a Service.
type Config struct {
	// Dir holds the tasks' files (<data dir>/tasks). Required.
	Dir string
	// Bus gets task:updated events and tells of deleted sessions; nil publishes nothing.
	Bus *events.Bus
	Log *slog.Logger
	// HeadBytes and TailBytes of each output are kept (defaults DefaultHeadBytes and
	// DefaultTailBytes).
	HeadBytes, TailBytes int
	// StopGrace is how long Stop and Close wait for a task's run to return after its
	// context ended before they record its end anyway (default 5 s).
	StopGrace time.Duration
	// SaveEvery is how often a running task's file is written while its output grows, so
	// a crash loses at most that much of it (default 2 s).
	SaveEvery time.Duration
}

// Service runs and keeps the background tasks of every session of one data directory.
type Service struct {
	cfg  Config
	log  *slog.Logger
	self pidcheck.Owner
	base context.Context
	quit context.CancelFunc
	sub  *events.Subscription
	wg   sync.WaitGroup

	mu        sync.Mutex
	tasks     map[string]*task
	closed    bool
	lastStart int64 // the latest StartedAt given
}

// task is one task with what only the service sees.
type task struct {
	rec    record
	out    output
	cancel context.CancelFunc // nil unless this process runs it
	done   chan struct{}      // closed when it ends (nil unless this process runs it)
	ending State              // the state a cancel ends it in
	// changed since the last event / the last write of its file
	unpublished, unsaved bool
}

// New opens the tasks kept in cfg.Dir; those left running by a process that is gone are
// marked interrupted. With a bus it removes a deleted session's tasks.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Dir == "" {
		return nil, errors.New("tasks: no directory")
	}
	if cfg.HeadBytes <= 0 {
		cfg.HeadBytes = DefaultHeadBytes
	}
	if cfg.TailBytes <= 0 {
		cfg.TailBytes = DefaultTailBytes
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 5 * time.Second
	}
	if cfg.SaveEvery <= 0 {
		cfg.SaveEvery = 2 * time.Second
	}
	base, quit := context.WithCancel(context.Background())
	s := &Service{cfg: cfg, log: cfg.Log, self: pidcheck.Self(), base: base, quit: quit, tasks: map[string]*task{}}
	if err := s.load(ctx); err != nil {
		quit()
		return nil, err
	}
	if cfg.Bus != nil {
		s.sub = cfg.Bus.Subscribe(1024)
		s.wg.Add(1)
		go s.followSessions()
	}
	return s, nil
}

// Start starts run as a task of spec.SessionID and returns at once with the task (state
// running). ctx bounds only the start: the run gets a context of its own, ended by Stop,
// by the deletion of its session and by Close. A session runs at most
// MaxRunningPerSession tasks at once.
func (s *Service) Start(ctx context.Context, spec Spec, run RunFunc) (Task, error) {
	if err := ctx.Err(); err != nil {
		return Task{}, err
	}
	if !validSession(spec.SessionID) || run == nil {
		return Task{}, apperr.New(apperr.InvalidArgument, "a task needs a session and something to run")
	}
	runCtx, cancel := context.WithCancel(s.base)
	t := &task{cancel: cancel, done: make(chan struct{}), out: s.newOutput(),
		rec: record{Owner: s.self, Task: Task{ID: newID(), SessionID: spec.SessionID, CallID: spec.CallID, Kind: spec.Kind,
			Title: spec.Title, State: StateRunning}}}
	s.mu.Lock()
	// Start times are distinct, so the newest-first order is the order of starting.
	t.rec.StartedAt = max(time.Now().UnixMilli(), s.lastStart+1)
	s.lastStart = t.rec.StartedAt
	if s.closed {
		s.mu.Unlock()
		cancel()
		return Task{}, apperr.New(apperr.Canceled, "Cairn is closing")
	}
	if n := s.runningLocked(spec.SessionID); n >= MaxRunningPerSession {
		s.mu.Unlock()
		cancel()
		return Task{}, apperr.New(apperr.TaskLimit, "the session already runs %d background tasks", n).WithParam("max", MaxRunningPerSession)
	}
	s.tasks[t.rec.ID] = t
	if err := s.saveLocked(t); err != nil {
		delete(s.tasks, t.rec.ID)
		s.mu.Unlock()
		cancel()
		return Task{}, apperr.Wrap(err, apperr.Internal, "keep the task")
	}
	view := s.viewLocked(t)
	s.wg.Add(1)
	s.mu.Unlock()
	s.publish(view)
	go s.run(runCtx, t, run)
	go s.pump(t)
	return view, nil
}

// run runs the task's work and records its end; a panic in it fails the task. It is not
// waited for by Close: a run that ignores its context is abandoned once its end is
// recorded (await).
func (s *Service) run(ctx context.Context, t *task, run RunFunc) {
	var res Result
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the task panicked: %v", r)
			}
		}()
		res, err = run(ctx, writer{s: s, t: t})
		return err
	}()
	s.finish(t, res, err)
}

// finish records the end of t once (a forced end may have come first).
func (s *Service) finish(t *task, res Result, err error) {
	s.mu.Lock()
	if t.rec.State != StateRunning {
		s.mu.Unlock()
		return
	}
	r := &t.rec
	r.Summary = res.Summary
	switch {
	case t.ending != "":
		r.State = t.ending
		if err == nil {
			r.ExitCode = &res.ExitCode
		}
	case err != nil:
		r.State, r.Error = StateFailed, err.Error()
	case res.ExitCode != 0:
		r.State, r.ExitCode = StateFailed, &res.ExitCode
	default:
		r.State, r.ExitCode = StateDone, &res.ExitCode
	}
	r.EndedAt = time.Now().UnixMilli()
	t.cancel()
	close(t.done)
	if err := s.saveLocked(t); err != nil {
		s.log.Warn("tasks: keep a task's end", "task", r.ID, "err", err)
	}
	view := s.viewLocked(t)
	t.unpublished = false
	s.mu.Unlock()
	s.publish(view)
}

// pump publishes a running task's growing output now and then and writes its file, so a
// window follows it and a crash loses at most Config.SaveEvery of it.
func (s *Service) pump(t *task) {
	defer s.wg.Done()
	tick := time.NewTicker(publishEvery)
	defer tick.Stop()
	lastSave := time.Now()
	for {
		select {
		case <-t.done:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		var view *Task
		if t.unpublished && t.rec.State == StateRunning {
			v := s.viewLocked(t)
			view, t.unpublished = &v, false
		}
		if t.unsaved && t.rec.State == StateRunning && time.Since(lastSave) >= s.cfg.SaveEvery {
			if err := s.saveLocked(t); err != nil {
				s.log.Warn("tasks: keep a task's output", "task", t.rec.ID, "err", err)
			}
			lastSave = time.Now()
		}
		s.mu.Unlock()
		if view != nil {
			s.publish(*view)
		}
	}
}

// writer is a task's out: every write lands in its capped output.
type writer struct {
	s *Service
	t *task
}

func (w writer) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if w.t.rec.State != StateRunning {
		return len(p), nil // ended (forced): late output is not kept
	}
	w.t.out.write(p)
	w.t.unpublished, w.t.unsaved = true, true
	return len(p), nil
}

// Get is one task of a session. A task of another session is not found.
func (s *Service) Get(sessionID, id string) (Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookupLocked(sessionID, id)
	if err != nil {
		return Task{}, err
	}
	return s.viewLocked(t), nil
}

// List is the session's tasks, newest first.
func (s *Service) List(sessionID string) List {
	seq := uint64(0)
	if s.cfg.Bus != nil {
		seq = s.cfg.Bus.Seq(Topic(sessionID))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := List{Tasks: []Task{}, Seq: seq}
	for _, t := range s.tasks {
		if t.rec.SessionID == sessionID {
			out.Tasks = append(out.Tasks, s.viewLocked(t))
		}
	}
	sortNewestFirst(out.Tasks)
	return out
}

// Output is the task's kept output whole (head, the dropped line, tail), for the window;
// it does not move the model's read position.
func (s *Service) Output(sessionID, id string) (Output, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookupLocked(sessionID, id)
	if err != nil {
		return Output{}, err
	}
	p := t.out.from(0, 0, true)
	return Output{Task: s.viewLocked(t), Text: p.Text}, nil
}

// Read is the output the model has not read yet (at most PageBytes) and the task's state,
// after waiting up to wait (at most MaxWait) for a running task to end; the read position
// moves past what it returns. A read that sees the task ended counts as the model being
// told of its end (Unreported leaves it out).
func (s *Service) Read(ctx context.Context, sessionID, id string, wait time.Duration) (Read, error) {
	s.mu.Lock()
	t, err := s.lookupLocked(sessionID, id)
	s.mu.Unlock()
	if err != nil {
		return Read{}, err
	}
	if wait > 0 && t.done != nil {
		timer := time.NewTimer(min(wait, MaxWait))
		select {
		case <-t.done:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks[id] != t {
		return Read{}, apperr.New(apperr.TaskNotFound, "background task %s is gone with its session", id).WithParam("id", id)
	}
	ended := t.rec.State != StateRunning
	p := t.out.from(t.rec.Read, PageBytes, ended)
	t.rec.Read = p.Next
	if ended && !p.More {
		t.rec.Reported = true
	}
	if err := s.saveLocked(t); err != nil {
		s.log.Warn("tasks: keep a read position", "task", id, "err", err)
	}
	return Read{Task: s.viewLocked(t), Page: p}, nil
}

// Stop ends a running task of the session (its whole process tree: the run's context
// ends) and returns it stopped; a task that ended already is returned as it is.
func (s *Service) Stop(ctx context.Context, sessionID, id string) (Task, error) {
	s.mu.Lock()
	t, err := s.lookupLocked(sessionID, id)
	if err != nil {
		s.mu.Unlock()
		return Task{}, err
	}
	if t.rec.State != StateRunning || t.done == nil {
		view := s.viewLocked(t)
		s.mu.Unlock()
		return view, nil
	}
	t.ending = StateStopped
	t.cancel()
	s.mu.Unlock()
	s.await(ctx, []*task{t})
	s.mu.Lock()
	view := s.viewLocked(t)
	s.mu.Unlock()
	return view, nil
}

// await waits up to Config.StopGrace for the tasks' runs to return, then records the end of
// those that did not (their ending state), so a run that ignores its context never
// stays running.
func (s *Service) await(ctx context.Context, ts []*task) {
	deadline := time.NewTimer(s.cfg.StopGrace)
	defer deadline.Stop()
	for _, t := range ts {
		select {
		case <-t.done:
			continue
		case <-deadline.C:
		case <-ctx.Done():
		}
		break
	}
	for _, t := range ts {
		select {
		case <-t.done:
		default:
			s.finish(t, Result{}, errors.New("the task did not end when asked"))
		}
	}
}

// Close stops every running task (recorded as interrupted: Cairn closed while it ran),
// waits for them and writes their files.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var running []*task
	for _, t := range s.tasks {
		if t.rec.State == StateRunning && t.done != nil {
			t.ending = StateInterrupted
			t.cancel()
			running = append(running, t)
		}
	}
	s.mu.Unlock()
	s.await(context.Background(), running)
	s.quit()
	if s.sub != nil {
		s.sub.Close()
	}
	s.wg.Wait()
	return nil
}

func (s *Service) lookupLocked(sessionID, id string) (*task, error) {
	t, ok := s.tasks[id]
	if !ok || sessionID == "" || t.rec.SessionID != sessionID {
		return nil, apperr.New(apperr.TaskNotFound, "no background task %s in this session", id).WithParam("id", id)
	}
	return t, nil
}

func (s *Service) runningLocked(sessionID string) int {
	n := 0
	for _, t := range s.tasks {
		if t.rec.SessionID == sessionID && t.rec.State == StateRunning {
			n++
		}
	}
	return n
}

func (s *Service) viewLocked(t *task) Task {
	v := t.rec.Task
	if v.ExitCode != nil {
		c := *v.ExitCode
		v.ExitCode = &c
	}
	v.OutputBytes, v.Dropped = t.out.Total, t.out.dropped()
	return v
}

func (s *Service) newOutput() output {
	return output{headMax: s.cfg.HeadBytes, tailMax: s.cfg.TailBytes}
}

func (s *Service) publish(t Task) {
	if s.cfg.Bus != nil {
		s.cfg.Bus.Publish(Topic(t.SessionID), EventUpdated, t)
	}
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "task_" + hex.EncodeToString(b)
}
