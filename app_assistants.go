package main

import "github.com/cairn-app/cairn/backend/assistants"

// Assistants facade: saved presets (instructions, model, parameters, toolsets, knowledge
// bases, skills) a conversation starts from; a few are built in.

// ListAssistants lists the built-in assistants, then the user's, with the topic's seq.
func (a *App) ListAssistants() (assistants.List, error) { return a.s.Assistants.List(a.ctx) }

// ListAssistantIcons are the icons an assistant may have.
func (a *App) ListAssistantIcons() ([]string, error) { return assistants.Icons(), nil }

// SaveAssistant creates (empty id) or changes one of the user's assistants.
func (a *App) SaveAssistant(id string, in assistants.Input) (assistants.Assistant, error) {
	return a.s.Assistants.Save(a.ctx, id, in)
}

// CopyAssistant makes an editable copy of any assistant (a built-in one included).
func (a *App) CopyAssistant(id string) (assistants.Assistant, error) {
	return a.s.Assistants.Copy(a.ctx, id)
}

// DeleteAssistant removes one of the user's assistants; built-in ones can only be hidden.
func (a *App) DeleteAssistant(id string) error { return a.s.Assistants.Delete(a.ctx, id) }

// SetAssistantHidden keeps an assistant out of the New chat picker, or shows it again.
func (a *App) SetAssistantHidden(id string, hidden bool) (assistants.Assistant, error) {
	return a.s.Assistants.SetHidden(a.ctx, id, hidden)
}

// StartAssistant starts a conversation from an assistant and says what of it was gone.
func (a *App) StartAssistant(id string) (assistants.Started, error) {
	return a.s.Assistants.Start(a.ctx, id)
}

// GetSessionAssistant is the assistant a conversation was started from (null when none).
func (a *App) GetSessionAssistant(sessionID string) (*assistants.Link, error) {
	return a.s.Assistants.SessionAssistant(a.ctx, sessionID)
}
