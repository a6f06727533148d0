package service

import (
	"context"
	"encoding/json"
	"os"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/sandbox"
	"github.com/cairn-app/cairn/backend/tools"
)

// Sandbox is the task tools' service, once the sandbox capability opened (nil before, or
// in a Cairn opened without it).
func (s *Services) Sandbox() *sandbox.Service {
	svc, _ := s.opened[sandbox.Name].(*sandbox.Service)
	return svc
}

// sandboxWorkspaces tells the approval service each task session's workspace, where the
// task tools' relative paths start and where acceptEdits lets edits pass. It asks the
// sandbox capability when it is open; before, sessions have none.
type sandboxWorkspaces struct{ s *Services }

func (w sandboxWorkspaces) Workspace(ctx context.Context, sessionID string) (string, error) {
	svc := w.s.Sandbox()
	if svc == nil {
		return "", nil
	}
	return svc.Workspaces().Workspace(ctx, sessionID)
}

// existing is the session's workspace for MCP roots: only a folder that exists (a made
// one appears on the task tools' first use), else "".
func (w sandboxWorkspaces) existing(ctx context.Context, sessionID string) (string, error) {
	p, err := w.Workspace(ctx, sessionID)
	if err != nil || p == "" {
		return "", err
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", nil
	}
	return p, nil
}

// unconfinedAsks makes every call of the task tools that can change things ask while they run without a sandbox
// (none works and the user turned "run unsandboxed" on): a hook's "ask" beats allow
// rules, so an allowed `go test` is still approved call by call.
func (s *Services) unconfinedAsks(ctx context.Context, _ tools.Call, e *tools.Entry, _ json.RawMessage) (tools.PreHookResult, error) {
	svc := s.Sandbox()
	if svc == nil || e.Namespace != sandbox.Name || e.ReadOnly || !svc.Unconfined(ctx) {
		return tools.PreHookResult{}, nil
	}
	return tools.PreHookResult{Decision: &tools.Decision{Behavior: tools.BehaviorAsk,
		Reason: "the sandbox tools run without a sandbox on this machine, so every call is approved"}}, nil
}

// SetSessionWorkspace makes dir the task session's workspace ("" a new folder of its own,
// see sandbox.Workspaces.Set) and tells the MCP servers that offer that session's
// workspace as a root, which hear of it through notifications/roots/list_changed.
func (s *Services) SetSessionWorkspace(ctx context.Context, sessionID, dir string) (sandbox.Workspace, error) {
	svc := s.Sandbox()
	if svc == nil {
		return sandbox.Workspace{}, apperr.New(apperr.Internal, "the sandbox is not available")
	}
	ws, err := svc.Workspaces().Set(ctx, sessionID, dir)
	if err != nil {
		return ws, err
	}
	if s.MCP != nil {
		p, _ := sandboxWorkspaces{s}.existing(ctx, sessionID)
		s.MCP.WorkspaceChanged(sessionID, p)
	}
	s.Bus.Publish(events.SessionTopic(sessionID), sandbox.EventWorkspace, ws) // every window's header follows
	return ws, nil
}
