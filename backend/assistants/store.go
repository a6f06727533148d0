package assistants

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cairn-app/cairn/backend/apperr"
)

// The assistants' own tables (migration 0028): assistants, assistant_hidden and
// assistant_sessions. Nothing else reads them.

const cols = "id, name, icon, description, instructions, provider_id, model, temperature, top_p, max_tokens, context_messages, toolsets, kbs, skills, created_at, updated_at"

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type scanner interface{ Scan(dest ...any) error }

func scan(row scanner) (Assistant, error) {
	var a Assistant
	var temp, topP sql.NullFloat64
	var ts, kbs, skills string
	err := row.Scan(&a.ID, &a.Name, &a.Icon, &a.Description, &a.Instructions, &a.ProviderID, &a.Model, &temp, &topP,
		&a.MaxTokens, &a.ContextMessages, &ts, &kbs, &skills, &a.CreatedAt, &a.UpdatedAt)
	if err != nil {
		return Assistant{}, err
	}
	if temp.Valid {
		a.Temperature = &temp.Float64
	}
	if topP.Valid {
		a.TopP = &topP.Float64
	}
	a.Toolsets, a.KBs, a.Skills = decodeList(ts), decodeList(kbs), decodeList(skills)
	return a, nil
}

func decodeList(s string) []string {
	out := []string{}
	_ = json.Unmarshal([]byte(s), &out)
	if out == nil {
		out = []string{}
	}
	return out
}

func encodeList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func nullFloat(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// stored is every assistant of the user, oldest first.
func (s *Service) stored(ctx context.Context) ([]Assistant, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+cols+" FROM assistants ORDER BY created_at, id")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list assistants")
	}
	defer rows.Close()
	out := []Assistant{}
	for rows.Next() {
		a, err := scan(rows)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read assistant")
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list assistants")
	}
	return out, nil
}

// hidden is the set of hidden assistants' ids.
func (s *Service) hidden(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM assistant_hidden")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list hidden assistants")
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "list hidden assistants")
		}
		out[id] = true
	}
	return out, rows.Err()
}

func (s *Service) insert(ctx context.Context, a Assistant) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO assistants("+cols+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		a.ID, a.Name, a.Icon, a.Description, a.Instructions, a.ProviderID, a.Model, nullFloat(a.Temperature), nullFloat(a.TopP),
		a.MaxTokens, a.ContextMessages, encodeList(a.Toolsets), encodeList(a.KBs), encodeList(a.Skills), a.CreatedAt, a.UpdatedAt)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "save assistant")
	}
	return nil
}

func (s *Service) update(ctx context.Context, a Assistant) error {
	_, err := s.db.ExecContext(ctx, `UPDATE assistants SET name = ?, icon = ?, description = ?, instructions = ?, provider_id = ?, model = ?,
		temperature = ?, top_p = ?, max_tokens = ?, context_messages = ?, toolsets = ?, kbs = ?, skills = ?, updated_at = ? WHERE id = ?`,
		a.Name, a.Icon, a.Description, a.Instructions, a.ProviderID, a.Model, nullFloat(a.Temperature), nullFloat(a.TopP),
		a.MaxTokens, a.ContextMessages, encodeList(a.Toolsets), encodeList(a.KBs), encodeList(a.Skills), a.UpdatedAt, a.ID)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "save assistant")
	}
	return nil
}

// remove deletes a user's assistant and its hidden mark in one transaction.
func (s *Service) remove(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete assistant")
	}
	defer func() { _ = tx.Rollback() }()
	for _, q := range []string{"DELETE FROM assistants WHERE id = ?", "DELETE FROM assistant_hidden WHERE id = ?"} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return apperr.Wrap(err, apperr.Internal, "delete assistant")
		}
	}
	if err := tx.Commit(); err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete assistant")
	}
	return nil
}

func (s *Service) setHidden(ctx context.Context, id string, hidden bool) error {
	q := "DELETE FROM assistant_hidden WHERE id = ?"
	if hidden {
		q = "INSERT OR IGNORE INTO assistant_hidden(id) VALUES(?)"
	}
	if _, err := s.db.ExecContext(ctx, q, id); err != nil {
		return apperr.Wrap(err, apperr.Internal, "hide assistant")
	}
	return nil
}

func (s *Service) link(ctx context.Context, sessionID string, a Assistant) error {
	_, err := s.db.ExecContext(ctx, "INSERT OR REPLACE INTO assistant_sessions(session_id, assistant_id, name, icon) VALUES(?, ?, ?, ?)",
		sessionID, a.ID, a.Name, a.Icon)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "link assistant")
	}
	return nil
}

// linked is the stored link of a conversation; ok false when it has none.
func (s *Service) linked(ctx context.Context, sessionID string) (Link, bool, error) {
	l := Link{SessionID: sessionID}
	err := s.db.QueryRowContext(ctx, "SELECT assistant_id, name, icon FROM assistant_sessions WHERE session_id = ?", sessionID).
		Scan(&l.AssistantID, &l.Name, &l.Icon)
	if errors.Is(err, sql.ErrNoRows) {
		return Link{}, false, nil
	}
	if err != nil {
		return Link{}, false, apperr.Wrap(err, apperr.Internal, "read assistant link")
	}
	return l, true, nil
}

func notFound(ref string) *apperr.Error {
	return apperr.New(apperr.AssistantNotFound, "no assistant %s", apperr.Quote(ref)).WithParam("name", apperr.Quote(ref))
}

func rangeErr(param string, lo, hi any) *apperr.Error {
	return apperr.New(apperr.AssistantParamRange, "%s must be between %v and %v", param, lo, hi).
		WithParam("param", param).WithParam("min", fmt.Sprint(lo)).WithParam("max", fmt.Sprint(hi))
}
