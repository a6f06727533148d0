package service

import (
	"context"
	"strings"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/classifier"
)

// chatHistory shows auto mode's classifier the last messages of a session: their text
// parts, oldest first. Chat is opened after approval, so it is looked up at each call.
type chatHistory struct{ s *Services }

func (h chatHistory) Recent(ctx context.Context, sessionID string, n int) ([]classifier.Turn, error) {
	if h.s.Chat == nil {
		return nil, nil
	}
	snap, err := h.s.Chat.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var turns []classifier.Turn
	for _, m := range snap.Messages {
		var text []string
		for _, p := range m.Parts {
			if p.Type == chat.PartText && strings.TrimSpace(p.Text) != "" {
				text = append(text, p.Text)
			}
		}
		if len(text) > 0 {
			turns = append(turns, classifier.Turn{Role: m.Role, Text: strings.Join(text, "\n")})
		}
	}
	if len(turns) > n {
		turns = turns[len(turns)-n:]
	}
	return turns, nil
}
