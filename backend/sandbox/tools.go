package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/sandbox/ops"
	"github.com/cairn-app/cairn/backend/tools"
)

// Wire names of the seven tools.
var (
	BashTool  = tools.BuiltinName(Name, "bash")
	ReadTool  = tools.BuiltinName(Name, "read")
	WriteTool = tools.BuiltinName(Name, "write")
	EditTool  = tools.BuiltinName(Name, "edit")
	GrepTool  = tools.BuiltinName(Name, "grep")
	ListTool  = tools.BuiltinName(Name, "ls")
	FindTool  = tools.BuiltinName(Name, "find")
)

// Settings is what the tools read of the settings (*settings.Service).
type Settings interface {
	Get(ctx context.Context, key string) (any, error)
}

// Service runs the task tools of every task session: each call in its session's
// workspace, inside the sandbox the engine gives.
type Service struct {
	engine     Engine
	spaces     *Workspaces
	settings   Settings
	background Background
}

// NewService runs the tools on engine, in the workspaces spaces keeps; settings gives the
// unsandboxed switch (nil: off); background runs sandbox_bash's run_in_background
// commands (nil: refused).
func NewService(engine Engine, spaces *Workspaces, settings Settings, background Background) *Service {
	return &Service{engine: engine, spaces: spaces, settings: settings, background: background}
}

// Workspaces is the store of the sessions' workspaces.
func (s *Service) Workspaces() *Workspaces { return s.spaces }

// Status is the sandbox's status with the switch's state.
func (s *Service) Status(ctx context.Context) StatusView {
	return StatusView{Status: s.engine.Status(ctx), Unsandboxed: s.unsandboxed(ctx)}
}

// StatusView is the sandbox's status as Settings and the task header show it.
type StatusView struct {
	Status
	// Unsandboxed: the user lets the tools run without a sandbox when none works (every
	// call then asks).
	Unsandboxed bool `json:"unsandboxed"`
}

// Unconfined reports whether calls run without a sandbox now (none works and the user
// allowed it): every call of the tools then asks, whatever the rules say.
func (s *Service) Unconfined(ctx context.Context) bool {
	return s.engine.Status(ctx).Level == LevelNone && s.unsandboxed(ctx)
}

func (s *Service) unsandboxed(ctx context.Context) bool {
	if s.settings == nil {
		return false
	}
	v, err := s.settings.Get(ctx, SettingUnsandboxed)
	on, _ := v.(bool)
	return err == nil && on
}

// place is where the call of ctx runs: its session's workspace, the protected paths, and
// whether it runs unconfined. Without a sandbox and without the user's leave it refuses.
func (s *Service) place(ctx context.Context, dir string) (Place, Level, error) {
	call, _ := tools.CallFromContext(ctx)
	id := call.SessionID
	if id == "" {
		id = call.Scope.SessionID
	}
	ws, err := s.spaces.Ensure(ctx, id)
	if err != nil {
		return Place{}, "", err
	}
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real // the sandbox mounts the folder itself; the ops name it as it is seen inside
	}
	st := s.engine.Status(ctx)
	p := Place{Workspace: ws, Protected: DefaultProtected(), Dir: dir}
	if st.Level == LevelNone {
		if !s.unsandboxed(ctx) {
			return Place{}, st.Level, apperr.New(apperr.SandboxUnavailable, "no sandbox works on this machine: %s", strings.Join(st.Reasons, "; ")).
				WithParam("reasons", strings.Join(st.Reasons, "; "))
		}
		p.Unconfined = true
	}
	return p, st.Level, nil
}

func (p Place) common() ops.Common {
	return ops.Common{Workspace: p.Workspace, Protected: p.Protected}
}

// op runs one op for the call of ctx; build makes its request from the place.
func (s *Service) op(ctx context.Context, name string, build func(ops.Common) any, out any) (Level, error) {
	p, level, err := s.place(ctx, "")
	if err != nil {
		return level, err
	}
	req, err := json.Marshal(build(p.common()))
	if err != nil {
		return level, fmt.Errorf("encode the %s request: %w", name, err)
	}
	b, err := s.engine.RunOp(ctx, p, name, req)
	if err != nil {
		return level, fmt.Errorf("run %s in the sandbox: %w", name, err)
	}
	return level, ops.Decode(b, out)
}

// refusal turns an op's refusal into a result the model reads (and the tool card shows),
// and passes other errors on.
func refusal(level Level, err error) (tools.Result, error) {
	var oe *ops.Error
	if errors.As(err, &oe) {
		return tools.Result{IsError: true, Content: oe.Message, Display: display(map[string]any{"level": level, "error": oe})}, nil
	}
	return tools.Result{}, err
}

func display(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// Tools are the seven task tools on s.
func (s *Service) Tools() []tools.Entry {
	return []tools.Entry{s.bashTool(), s.readTool(), s.writeTool(), s.editTool(), s.grepTool(), s.listTool(), s.findTool()}
}

// pathOr is the path a call names, "." when it names none.
func pathOr(p string) string {
	if strings.TrimSpace(p) == "" {
		return "."
	}
	return p
}

// slashed is a path as results name it.
func slashed(p string) string { return path.Clean(strings.ReplaceAll(p, "\\", "/")) }
