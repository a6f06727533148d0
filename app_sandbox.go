package main

import (
	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/sandbox"
)

// sandboxes is the task tools' service the sandbox capability started.
func (a *App) sandboxes() (*sandbox.Service, error) {
	if s := a.s.Sandbox(); s != nil {
		return s, nil
	}
	return nil, apperr.New(apperr.Internal, "the sandbox is not available")
}

// GetSandboxStatus is the sandbox's level on this machine, what holds, why anything is
// missing, and whether the tools may run unsandboxed.
func (a *App) GetSandboxStatus() (sandbox.StatusView, error) {
	s, err := a.sandboxes()
	if err != nil {
		return sandbox.StatusView{}, err
	}
	return s.Status(a.ctx), nil
}

// GetSessionWorkspace is a task session's workspace.
func (a *App) GetSessionWorkspace(sessionID string) (sandbox.Workspace, error) {
	s, err := a.sandboxes()
	if err != nil {
		return sandbox.Workspace{}, err
	}
	return s.Workspaces().Get(a.ctx, sessionID)
}

// SetSessionWorkspace makes dir (an absolute folder) the task session's workspace; ""
// gives it a new folder in Cairn's data directory.
func (a *App) SetSessionWorkspace(sessionID, dir string) (sandbox.Workspace, error) {
	return a.s.SetSessionWorkspace(a.ctx, sessionID, dir)
}
