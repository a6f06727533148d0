package chat

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// Transcript is one conversation as an import brings it: the session and its messages
// with their parts, ids and times as they were. Provider ids that name no provider here
// are dropped (the default provider answers instead).
type Transcript struct {
	Session  Session   `json:"session"`
	Messages []Message `json:"messages"`
}

// Import stores transcripts in one transaction, so a failure leaves nothing of any of
// them. A transcript whose session id (or a message or part id) is taken already gets
// fresh ids first (rekey), so importing the same file twice keeps both copies. It
// returns the stored sessions, in order. place, when set, runs for each transcript once
// its ids are final and before it is stored (the importer writes its files there); an
// error from it rolls everything back.
func (s *Service) Import(ctx context.Context, ts []Transcript, place func(*Transcript) error) ([]Session, error) {
	out := make([]Session, 0, len(ts))
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		for i := range ts {
			t := &ts[i]
			if taken(ctx, tx, t) {
				Rekey(t)
			}
			if place != nil {
				if err := place(t); err != nil {
					return err
				}
			}
			if err := insertTranscript(ctx, tx, t); err != nil {
				return err
			}
			if err := s.linkTranscript(ctx, tx, t); err != nil {
				return err
			}
			out = append(out, t.Session)
		}
		return nil
	})
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, apperr.Wrap(err, apperr.Internal, "import conversations")
	}
	for _, sess := range out {
		sess.State = StateIdle
		s.bus.Publish(events.TopicSessions, EventSessionsUpserted, sess)
	}
	return out, nil
}

// Rekey gives a transcript new session, message and part ids (its references to them,
// the tree's parents and choices, follow).
func Rekey(t *Transcript) {
	t.Session.ID = newID()
	ids := make(map[string]string, len(t.Messages))
	for i := range t.Messages {
		m := &t.Messages[i]
		old := m.ID
		m.ID, m.SessionID = newID(), t.Session.ID
		if old != "" {
			ids[old] = m.ID
		}
		for j := range m.Parts {
			m.Parts[j].ID, m.Parts[j].MessageID = newID(), m.ID
		}
	}
	for i := range t.Messages {
		m := &t.Messages[i]
		m.ParentID, m.ChosenChildID = ids[m.ParentID], ids[m.ChosenChildID]
	}
	t.Session.ChosenRootID = ids[t.Session.ChosenRootID]
}

// taken reports whether any id of the transcript is in use (or missing).
func taken(ctx context.Context, tx *sql.Tx, t *Transcript) bool {
	var n int
	if t.Session.ID == "" {
		return true
	}
	for _, m := range t.Messages {
		for _, p := range m.Parts {
			if m.ID == "" || p.ID == "" {
				return true
			}
		}
	}
	if tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions WHERE id = ?", t.Session.ID).Scan(&n); n > 0 {
		return true
	}
	for _, m := range t.Messages {
		if tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM messages WHERE id = ?", m.ID).Scan(&n); n > 0 {
			return true
		}
		for _, p := range m.Parts {
			if tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM parts WHERE id = ?", p.ID).Scan(&n); n > 0 {
				return true
			}
		}
	}
	return false
}

func insertTranscript(ctx context.Context, tx *sql.Tx, t *Transcript) error {
	sess := &t.Session
	if sess.ProviderID != "" {
		var n int
		if tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM providers WHERE id = ?", sess.ProviderID).Scan(&n); n == 0 {
			sess.ProviderID = ""
		}
	}
	if sess.Kind != KindTask {
		sess.Kind = KindChat
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO sessions("+strings.ReplaceAll(sessionCols, "COALESCE(provider_id, '')", "provider_id")+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		sess.ID, sess.Kind, cleanTitle(sess.Title), nullString(sess.ProviderID), sess.Model, sess.SystemPrompt, nullTemp(sess.Temperature), toolsetsJSON(sess.Toolsets),
		sess.Reasoning.Effort, sess.Reasoning.Budget, sess.CreatedAt, sess.UpdatedAt)
	if err != nil {
		return err
	}
	linkTree(t)
	if _, err := tx.ExecContext(ctx, "UPDATE sessions SET chosen_root_id = ? WHERE id = ?", sess.ChosenRootID, sess.ID); err != nil {
		return err
	}
	if checkParams(sess.TopP, sess.MaxTokens, sess.ContextMessages) != nil {
		sess.TopP, sess.MaxTokens, sess.ContextMessages = nil, 0, 0 // another app's values: the defaults
	}
	if err := saveParams(ctx, tx, *sess); err != nil {
		return err
	}
	for i := range t.Messages {
		m := &t.Messages[i]
		m.SessionID, m.Seq = sess.ID, i+1
		if m.Status == MessageStreaming {
			m.Status = MessageInterrupted // no process streams an imported message
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO messages("+messageCols+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			m.ID, m.SessionID, m.Seq, m.Role, m.Status, m.ProviderID, m.Model, m.FinishReason, jsonOrNil(m.Usage), jsonOrNil(m.Error), m.CreatedAt, m.UpdatedAt,
			nullString(m.ParentID), m.ChosenChildID)
		if err != nil {
			return err
		}
		for j := range m.Parts {
			p := &m.Parts[j]
			p.MessageID, p.Index, p.State = m.ID, j, PartDone
			if err := insertPart(ctx, tx, *p); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkTranscript links the imported messages to the attachments they name that the store
// holds (the import's place hook stored those its export carried), so deleting the
// imported conversation frees them too.
func (s *Service) linkTranscript(ctx context.Context, tx *sql.Tx, t *Transcript) error {
	if s.cfg.Attachments == nil {
		return nil
	}
	for _, m := range t.Messages {
		if atts := attachmentsOf(m); len(atts) > 0 && m.Role == RoleUser {
			if err := s.cfg.Attachments.Link(ctx, tx, m.ID, atts); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkTree makes a transcript's messages a tree the store accepts. A transcript without
// parent ids (an export from before branches, another app's line) is a line: each
// message follows the one before it and is its chosen follower. Otherwise a parent must
// come earlier in the list (so it is stored first); a message whose parent does not
// becomes a first message. Choices are kept as given: one that names no child means the
// newest, as for any tree.
func linkTree(t *Transcript) {
	linked := false
	for _, m := range t.Messages {
		linked = linked || m.ParentID != ""
	}
	if !linked {
		t.Session.ChosenRootID = ""
		for i := range t.Messages {
			m := &t.Messages[i]
			m.ChosenChildID = ""
			if i > 0 {
				m.ParentID = t.Messages[i-1].ID
				t.Messages[i-1].ChosenChildID = m.ID
			} else {
				t.Session.ChosenRootID = m.ID
			}
		}
		return
	}
	seen := map[string]bool{}
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.ParentID != "" && !seen[m.ParentID] {
			m.ParentID = ""
		}
		seen[m.ID] = true
		m.SiblingIDs = nil
	}
}

// jsonOrNil is v as JSON text, or NULL for a nil pointer.
func jsonOrNil[T any](v *T) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return string(b)
}
