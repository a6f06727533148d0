package main

import (
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
)

// Chat facade (CHAT-1..3): providers, sessions and the agent loop. Event and part shapes
// are in docs/CHAT-API.md.

// ListProviderPresets lists the known providers a new one can start from.
func (a *App) ListProviderPresets() ([]llm.Preset, error) { return llm.Presets(), nil }

// ListProviders returns the configured providers (never their keys) with the settings seq.
func (a *App) ListProviders() (llm.ProvidersSnapshot, error) { return a.s.Providers.List(a.ctx) }

// SaveProvider creates (empty id) or updates a provider; a non-empty apiKey goes to the
// keyring.
func (a *App) SaveProvider(in llm.ProviderInput) (llm.Provider, error) {
	return a.s.Providers.Save(a.ctx, in)
}

// DeleteProvider removes a provider and its key.
func (a *App) DeleteProvider(id string) error { return a.s.Providers.Delete(a.ctx, id) }

// FetchModels reads the provider's model list and merges it into the stored one.
func (a *App) FetchModels(providerID string) (llm.Provider, error) {
	return a.s.Providers.FetchModels(a.ctx, providerID)
}

// SetModelPrice sets the user's price of a provider's model (per million tokens); every
// answer of that model is priced with it from then on.
func (a *App) SetModelPrice(providerID, model string, price llm.Price) (llm.Provider, error) {
	return a.s.Providers.SetPrice(a.ctx, providerID, model, price)
}

// ClearModelPrice removes the user's price of a model; the provider's or Cairn's default
// price applies again.
func (a *App) ClearModelPrice(providerID, model string) (llm.Provider, error) {
	return a.s.Providers.ClearPrice(a.ctx, providerID, model)
}

// TestProvider makes one tiny real request; a failure is reported in the result.
func (a *App) TestProvider(providerID, model string) (llm.TestResult, error) {
	res, err := a.s.Providers.Test(a.ctx, providerID, model)
	res.Error = a.s.Redact.Error(res.Error) // a provider's error may echo the key
	return res, err
}

// ListSessions lists sessions, newest first, optionally filtered by title.
func (a *App) ListSessions(query string) (chat.SessionList, error) {
	return a.s.Chat.ListSessions(a.ctx, query)
}

// CreateSession starts a new chat or task session.
func (a *App) CreateSession(in chat.SessionInput) (chat.Session, error) {
	return a.s.Chat.CreateSession(a.ctx, in)
}

// UpdateSession changes a session's provider, model, system prompt, temperature or toolsets.
func (a *App) UpdateSession(id string, patch chat.SessionPatch) (chat.Session, error) {
	return a.s.Chat.UpdateSession(a.ctx, id, patch)
}

// RenameSession sets a session's title.
func (a *App) RenameSession(id, title string) (chat.Session, error) {
	return a.s.Chat.RenameSession(a.ctx, id, title)
}

// PinSession keeps a conversation on top of the list, or lets it go back in order.
func (a *App) PinSession(id string, pinned bool) (chat.Session, error) {
	return a.s.Chat.PinSession(a.ctx, id, pinned)
}

// ArchiveSession takes a conversation out of the list (still searchable), or restores it.
func (a *App) ArchiveSession(id string, archived bool) (chat.Session, error) {
	return a.s.Chat.ArchiveSession(a.ctx, id, archived)
}

// SearchMessages finds messages whose text matches the query, with a snippet each.
func (a *App) SearchMessages(query string) (chat.SearchResult, error) {
	return a.s.Chat.SearchMessages(a.ctx, query)
}

// DeleteSession stops and removes a session with its messages.
func (a *App) DeleteSession(id string) error { return a.s.Chat.DeleteSession(a.ctx, id) }

// GetSession returns the session with every message and part, stamped with its topic seq.
func (a *App) GetSession(id string) (chat.Snapshot, error) { return a.s.Chat.GetSession(a.ctx, id) }

// SendMessage stores the user's message with its attachments (uploads by id, and files
// that failed, which the message lists as left out) and starts the answer; it streams as
// events.
func (a *App) SendMessage(sessionID, text string, attachments []chat.AttachmentInput) (chat.SendResult, error) {
	return a.s.Chat.Send(a.ctx, sessionID, text, attachments)
}

// StopSession stops the running answer, keeping what arrived.
func (a *App) StopSession(sessionID string) error { return a.s.Chat.Stop(a.ctx, sessionID) }

// Regenerate answers the last user message again; the earlier answer stays as a version.
func (a *App) Regenerate(sessionID string) (chat.SendResult, error) {
	return a.s.Chat.Regenerate(a.ctx, sessionID)
}

// EditAndResend sends new text as a version of a user message and answers it; the old
// version and what followed stay on their branch (editMode "branch").
func (a *App) EditAndResend(sessionID, messageID, text string) (chat.SendResult, error) {
	return a.s.Chat.EditAndResend(a.ctx, sessionID, messageID, text)
}

// SelectBranch shows the version a message is (and the branch it is on) and returns the
// snapshot of the new path.
func (a *App) SelectBranch(sessionID, messageID string) (chat.Snapshot, error) {
	return a.s.Chat.SelectBranch(a.ctx, sessionID, messageID)
}
