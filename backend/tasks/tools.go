package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/google/jsonschema-go/jsonschema"
)

// Name is the capability's name and its tools' namespace (task_output, task_stop).
const Name = "task"

// Wire names of the tools.
var (
	OutputTool = tools.BuiltinName(Name, "output")
	StopTool   = tools.BuiltinName(Name, "stop")
)

// Instruction tells the model how background tasks work.
const Instruction = "Background tasks: a tool called with run_in_background returns a task id at once and keeps running. " +
	"Read what it wrote since your last read with task_output (wait_seconds lets it finish first), end it with task_stop. " +
	"You are told when a task you started ends."

// hostToolsets are the toolsets whose tools start background tasks (sandbox_bash, the
// sub-agents' agent_run): the task tools are offered where one of them is on.
func hostToolsets() []string { return []string{"sandbox", "agent"} }

// Capability declares the background tasks: tools in every session that has a toolset
// that starts tasks, not a choice of its own, and the Service as its opened value.
func Capability() capability.Capability {
	return capability.Capability{
		Name: Name, Label: "chat:tools.namespace.task", Icon: "task", Fixed: true,
		Instruction: Instruction,
		Open: func(ctx context.Context, env capability.Env) (capability.Opened, error) {
			svc, err := New(ctx, Config{Dir: filepath.Join(env.DataDir, "tasks"), Bus: env.Bus, Log: env.Log})
			if err != nil {
				return capability.Opened{}, err
			}
			return capability.Opened{Tools: svc.Tools(), Close: svc.Close, Value: svc}, nil
		},
	}
}

// applies holds in a session with a toolset that starts tasks.
func applies(s tools.Scope) bool {
	return slices.ContainsFunc(hostToolsets(), s.HasToolset)
}

// OutputInput are task_output's arguments.
type OutputInput struct {
	ID          string `json:"id" jsonschema:"the task id a run_in_background call returned"`
	WaitSeconds int    `json:"wait_seconds,omitempty" jsonschema:"seconds to wait for the task to end before answering (default 0: answer at once; at most 300)"`
}

// StopInput are task_stop's arguments.
type StopInput struct {
	ID string `json:"id" jsonschema:"the task id to stop"`
}

// Tools are task_output and task_stop; both see only the calling session's tasks.
func (s *Service) Tools() []tools.Entry {
	return []tools.Entry{
		tools.Typed(tools.TypedTool[OutputInput]{
			Name: OutputTool,
			Description: "Read a background task's output written since your previous read of it (at most 32 KiB a read; " +
				"call again for more) and its state: running, done, failed, stopped or interrupted, with the exit code.",
			SearchHint: "background task output poll status log", ReadOnly: true, ConcurrencySafe: true, Cancellable: true,
			Timeout: MaxWait + 30*time.Second, Applies: applies, ProgressKind: "task",
			Refine: func(sc *jsonschema.Schema) {
				if p := sc.Properties["wait_seconds"]; p != nil {
					lo, hi := 0.0, MaxWait.Seconds()
					p.Minimum, p.Maximum = &lo, &hi
				}
			},
			Run: s.runOutput,
		}),
		tools.Typed(tools.TypedTool[StopInput]{
			Name:        StopTool,
			Description: "Stop a background task of this conversation, with every process it started.",
			SearchHint:  "background task stop kill cancel", Approval: tools.ApprovalAllow, Cancellable: true, Applies: applies,
			Run: s.runStop,
		}),
	}
}

func callSession(ctx context.Context) (string, error) {
	call, _ := tools.CallFromContext(ctx)
	id := call.SessionID
	if id == "" {
		id = call.Scope.SessionID
	}
	if id == "" {
		return "", errors.New("background tasks belong to a conversation; this call has none")
	}
	return id, nil
}

func (s *Service) runOutput(ctx context.Context, in OutputInput, _ func(tools.Progress)) (tools.Result, error) {
	session, err := callSession(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	r, err := s.Read(ctx, session, strings.TrimSpace(in.ID), time.Duration(in.WaitSeconds)*time.Second)
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: ReadText(r), Display: displayOf(r)}, nil
}

func (s *Service) runStop(ctx context.Context, in StopInput, _ func(tools.Progress)) (tools.Result, error) {
	session, err := callSession(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	t, err := s.Stop(ctx, session, strings.TrimSpace(in.ID))
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Content: "Task " + t.ID + ": " + StateText(t) + ".", Display: displayOf(Read{Task: t})}, nil
}

// StateText is a task's state as the model reads it: "running", "done (exit code 0)".
func StateText(t Task) string {
	s := string(t.State)
	switch {
	case t.ExitCode != nil:
		s += fmt.Sprintf(" (exit code %d)", *t.ExitCode)
	case t.Error != "":
		s += " (" + t.Error + ")"
	}
	if t.State == StateInterrupted {
		s += ": Cairn closed while it ran"
	}
	return s
}

// ReadText is a task_output read as the model reads it.
func ReadText(r Read) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s (%s: %s): %s.\n", r.Task.ID, r.Task.Kind, r.Task.Title, StateText(r.Task))
	switch {
	case r.Text == "" && r.Task.OutputBytes == 0:
		b.WriteString("No output yet.")
	case r.Text == "":
		b.WriteString("No new output since the last read.")
	default:
		fmt.Fprintf(&b, "Output since the last read:\n%s", r.Text)
		if !strings.HasSuffix(r.Text, "\n") {
			b.WriteString("\n")
		}
	}
	if r.More {
		b.WriteString("\n[More output follows: call task_output again.]")
	}
	if r.Task.Summary != "" && r.Task.Ended() && !r.More {
		fmt.Fprintf(&b, "\nResult:\n%s", r.Task.Summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// NoticeText is what the model is told when a task it started ended.
func NoticeText(t Task) string {
	return fmt.Sprintf("[Cairn] Background task %s (%s: %s) ended: %s. Read its output with task_output.",
		t.ID, t.Kind, t.Title, StateText(t))
}

func displayOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
