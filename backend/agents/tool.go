package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tools"
)

// ToolName is the wire name of the tool that starts a sub-agent.
var ToolName = tools.BuiltinName(Name, "run")

// ProgressKind labels a sub-agent's progress on its parent's card and in `cairn chat`.
const ProgressKind = "agent"

type runInput struct {
	Description     string `json:"description" jsonschema:"A short description of the task (3 to 5 words), shown to the user"`
	Prompt          string `json:"prompt" jsonschema:"The task: everything the sub-agent needs to know, since it sees nothing of this conversation"`
	Type            string `json:"type" jsonschema:"The sub-agent type: general, researcher, coder, or one the user defined (see the instructions)"`
	Provider        string `json:"provider,omitempty" jsonschema:"The provider of the sub-agent's model, by id or name; empty: the type's, else this conversation's"`
	Model           string `json:"model,omitempty" jsonschema:"The sub-agent's model; empty: the type's, else this conversation's"`
	Name            string `json:"name,omitempty" jsonschema:"A short name for this sub-agent, shown to the user; empty: its type"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Start it and return at once, to read its result later"`
}

// Tools are the capability's tools: agent_run.
func (s *Service) Tools() []tools.Entry {
	return []tools.Entry{tools.Typed(tools.TypedTool[runInput]{
		Name: ToolName,
		Description: "Start a sub-agent on a self-contained task. It works in a fresh context with the tools of its type " +
			"(never more than this conversation has) and answers once with its result and an account of what it did.",
		// It changes nothing itself: every call the sub-agent makes goes through the
		// permission step (and the approval dialog) on its own.
		ReadOnly: true, ConcurrencySafe: true, Cancellable: true, ProgressKind: ProgressKind,
		Instructions: s.instructions,
		Validate: func(_ context.Context, in runInput) error {
			if strings.TrimSpace(in.Prompt) == "" {
				return fmt.Errorf("the prompt is empty: say what the sub-agent should do")
			}
			if strings.TrimSpace(in.Type) == "" {
				return fmt.Errorf("the type is empty: choose general, researcher, coder or a user-defined type")
			}
			return nil
		},
		Run: s.run,
	})}
}

// instructions are the toolset's text with the types this Cairn has.
func (s *Service) instructions(ctx context.Context, scope tools.Scope) string {
	types, err := s.ListTypes(ctx)
	if err != nil {
		return Instruction
	}
	var b strings.Builder
	b.WriteString(Instruction)
	b.WriteString("\nSub-agent types (the type argument):")
	for _, t := range types {
		if t.TaskOnly && scope.SessionKind != "task" {
			continue
		}
		fmt.Fprintf(&b, "\n- %s: %s", t.Name, oneLine(t.Description))
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// run is agent_run: a foreground child runs to its end under the call's context.
func (s *Service) run(ctx context.Context, in runInput, progress func(tools.Progress)) (tools.Result, error) {
	call, ok := tools.CallFromContext(ctx)
	if !ok || call.SessionID == "" {
		return tools.Result{}, apperr.New(apperr.InvalidArgument, "agent_run runs only inside a conversation").WithParam("message", "agent_run runs only inside a conversation")
	}
	var bg Background
	if in.RunInBackground {
		if s.bg != nil {
			bg = s.bg()
		}
		if bg == nil {
			return tools.Result{}, apperr.New(apperr.AgentBackgroundMissing, "background tasks are not available in this Cairn; run the sub-agent in the foreground")
		}
	}
	c, err := s.prepare(ctx, call, in)
	if err != nil {
		return tools.Result{}, err
	}
	if bg != nil {
		return s.startBackground(ctx, bg, call, c)
	}
	res, err := s.runChild(ctx, c, progress)
	if err != nil {
		return tools.Result{}, err
	}
	display, _ := json.Marshal(res.Run)
	return tools.Result{Content: res.Content, Display: display, IsError: res.Run.State == StateError}, nil
}
