package main

import (
	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/tasks"
)

// backgroundTasks is the tasks capability's service.
func (a *App) backgroundTasks() (*tasks.Service, error) {
	if s := a.s.Tasks(); s != nil {
		return s, nil
	}
	return nil, apperr.New(apperr.Internal, "background tasks are not available")
}

// ListTasks is a session's background tasks, newest first, with the seq of its topic
// (tasks:<session>, whose task:updated events keep the list current).
func (a *App) ListTasks(sessionID string) (tasks.List, error) {
	s, err := a.backgroundTasks()
	if err != nil {
		return tasks.List{}, err
	}
	return s.List(sessionID), nil
}

// GetTaskOutput is a task's kept output (its head, the dropped line, its tail); it does
// not move the model's read position.
func (a *App) GetTaskOutput(sessionID, id string) (tasks.Output, error) {
	s, err := a.backgroundTasks()
	if err != nil {
		return tasks.Output{}, err
	}
	out, err := s.Output(sessionID, id)
	if err != nil {
		return tasks.Output{}, err
	}
	out.Text = a.s.Redact.String(out.Text)
	out.Task.Title = a.s.Redact.String(out.Task.Title)
	return out, nil
}

// StopTask ends a running task of the session with everything it started.
func (a *App) StopTask(sessionID, id string) (tasks.Task, error) {
	s, err := a.backgroundTasks()
	if err != nil {
		return tasks.Task{}, err
	}
	return s.Stop(a.ctx, sessionID, id)
}
