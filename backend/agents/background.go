package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cairn-app/cairn/backend/tasks"
	"github.com/cairn-app/cairn/backend/tools"
)

// Background is the part of the tasks service a background child needs, defined here
// where it is used.
type Background interface {
	Start(ctx context.Context, spec tasks.Spec, run tasks.RunFunc) (tasks.Task, error)
}

// startBackground runs a prepared child as a background task of the parent's session: the
// call returns the task id at once, the child runs on the task's context (task_stop, the
// session's deletion and Cairn's close end it, the parent's Stop does not), its steps go
// to the task's output and its answer is the task's summary, read with task_output.
func (s *Service) startBackground(ctx context.Context, bg Background, call tools.Call, c *child) (tools.Result, error) {
	spec := tasks.Spec{SessionID: call.SessionID, CallID: call.ID, Kind: "agent", Title: c.run.Name}
	t, err := bg.Start(ctx, spec, func(tctx context.Context, out io.Writer) (tasks.Result, error) {
		res, err := s.runChild(tctx, c, func(p tools.Progress) {
			if p.Message != "" {
				fmt.Fprintln(out, p.Message)
			}
		})
		if err != nil {
			return tasks.Result{ExitCode: 1}, err
		}
		fmt.Fprintln(out, res.Content)
		code := 0
		if res.Run.State != StateDone {
			code = 1
		}
		return tasks.Result{ExitCode: code, Summary: res.Text}, nil
	})
	if err != nil {
		c.run.State = StateError
		s.finishRun(c.run)
		return tools.Result{}, err
	}
	display, _ := json.Marshal(c.run)
	text := fmt.Sprintf("The sub-agent %s started in the background as task %s. Read its progress and answer with task_output (id %q); task_stop ends it.", c.run.Name, t.ID, t.ID)
	return tools.Result{Content: text, Display: display}, nil
}
