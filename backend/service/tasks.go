package service

import (
	"context"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/tasks"
)

// Tasks is the background tasks' service, once the tasks capability opened (nil before,
// or in a Cairn opened without it).
func (s *Services) Tasks() *tasks.Service {
	svc, _ := s.opened[tasks.Name].(*tasks.Service)
	return svc
}

// taskNotices tells chat's rounds of the background tasks that ended without the model
// hearing of it (chat.Notices).
type taskNotices struct{ s *Services }

func (n taskNotices) Pending(_ context.Context, sessionID string) []chat.Notice {
	svc := n.s.Tasks()
	if svc == nil {
		return nil
	}
	var out []chat.Notice
	for _, t := range svc.Unreported(sessionID) {
		out = append(out, chat.Notice{ID: t.ID, Kind: "task-ended", Title: t.Title, State: string(t.State), ExitCode: t.ExitCode,
			Text: tasks.NoticeText(t)})
	}
	return out
}

func (n taskNotices) Delivered(_ context.Context, sessionID string, ids []string) {
	if svc := n.s.Tasks(); svc != nil {
		svc.MarkReported(sessionID, ids)
	}
}
