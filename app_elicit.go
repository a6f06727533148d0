package main

import "github.com/cairn-app/cairn/backend/elicit"

// Elicitation facade: MCP servers asking the user for input (elicitation/create). Every
// window shows the pending requests as a form; the first answer from any window (or the
// terminal of `cairn chat`) wins. Announced on the `elicitations` topic
// (elicitation:requested / elicitation:answered); the snapshot carries its seq.

// ListPendingElicitations returns the questions waiting for an answer: the forms every
// window shows.
func (a *App) ListPendingElicitations() (elicit.Pending, error) {
	return a.s.Elicit.Pending(a.ctx)
}

// AnswerElicitation answers a question: accept with the form's content, decline or
// cancel. The first answer wins; later ones get elicitation_already_answered, and an
// accepted content that does not fit the form gets elicitation_answer_invalid (the
// question stays open). window names the answering window.
func (a *App) AnswerElicitation(id string, action elicit.Action, content map[string]any, window string) (elicit.Request, error) {
	return a.s.Elicit.Answer(a.ctx, id, action, content, window)
}
