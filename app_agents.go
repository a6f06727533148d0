package main

import (
	"github.com/cairn-app/cairn/backend/agents"
	"github.com/cairn-app/cairn/backend/apperr"
)

// agentsService is the sub-agents' service the agents capability started.
func (a *App) agentsService() (*agents.Service, error) {
	if s, ok := a.s.Opened(agents.Name).(*agents.Service); ok && s != nil {
		return s, nil
	}
	return nil, apperr.New(apperr.Internal, "sub-agents are not available")
}

// GetAgentRun is the sub-agent a tool call of a session started: its own conversation,
// name, type, state and account (the parent's tool card shows it live).
func (a *App) GetAgentRun(sessionID, callID string) (agents.Run, error) {
	s, err := a.agentsService()
	if err != nil {
		return agents.Run{}, err
	}
	return s.GetRun(a.ctx, sessionID, callID)
}

// ListAgentRuns are the sub-agents a session started, oldest first.
func (a *App) ListAgentRuns(sessionID string) ([]agents.Run, error) {
	s, err := a.agentsService()
	if err != nil {
		return nil, err
	}
	return s.ListRuns(a.ctx, sessionID)
}

// ListAgentTypes are the sub-agent types: the built-in ones, then the user's.
func (a *App) ListAgentTypes() ([]agents.Type, error) {
	s, err := a.agentsService()
	if err != nil {
		return nil, err
	}
	return s.ListTypes(a.ctx)
}

// SaveAgentType adds or changes a sub-agent type the user defines (by its name).
func (a *App) SaveAgentType(t agents.Type) (agents.Type, error) {
	s, err := a.agentsService()
	if err != nil {
		return agents.Type{}, err
	}
	return s.SaveType(a.ctx, t)
}

// DeleteAgentType removes a sub-agent type the user defined.
func (a *App) DeleteAgentType(name string) error {
	s, err := a.agentsService()
	if err != nil {
		return err
	}
	return s.DeleteType(a.ctx, name)
}
