package kb

import (
	"cmp"
	"context"

	"github.com/cairn-app/cairn/backend/tools"
)

// SetSessionKBs attaches KBs (by id or name) to a session, in place of those it had;
// kb_search in that session searches them unless the model names others. It returns the
// ids attached.
func (s *Service) SetSessionKBs(ctx context.Context, sessionID string, refs []string) ([]string, error) {
	ids := []string{}
	if len(refs) > 0 {
		kbs, err := s.resolve(ctx, refs)
		if err != nil {
			return nil, err
		}
		for _, k := range kbs {
			ids = append(ids, k.ID)
		}
	}
	if err := s.st.SetSessionKBs(ctx, sessionID, ids); err != nil {
		return nil, err
	}
	got, err := s.st.SessionKBs(ctx, sessionID)
	if err == nil && s.cfg.Bus != nil {
		s.cfg.Bus.Publish(TopicKBs, TypeAttached, SessionKBs{SessionID: sessionID, KBs: got})
	}
	return got, err
}

// SessionKBs are the ids of the KBs a session has attached.
func (s *Service) SessionKBs(ctx context.Context, sessionID string) ([]string, error) {
	return s.st.SessionKBs(ctx, sessionID)
}

// attached is the KBs the session of a tool call has attached; none outside a call.
func (s *Service) attached(ctx context.Context) []string {
	call, ok := tools.CallFromContext(ctx)
	if !ok {
		return nil
	}
	sid := cmp.Or(call.SessionID, call.Scope.SessionID)
	if sid == "" {
		return nil
	}
	if len(call.Scope.KBs) > 0 {
		return call.Scope.KBs
	}
	ids, err := s.st.SessionKBs(ctx, sid)
	if err != nil {
		s.log.Warn("kb: attached knowledge bases", "session", sid, "err", err)
		return nil
	}
	return ids
}

// SearchDisplay is kb_search's result for the tool card: the KBs searched (by name),
// whether they were the session's attached ones, and the passages.
type SearchDisplay struct {
	Query    string   `json:"query"`
	KBs      []string `json:"kbs"`
	Attached bool     `json:"attached,omitempty"`
	Hits     []Hit    `json:"hits"`
}
