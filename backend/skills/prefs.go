package skills

import (
	"context"
	"database/sql"
	"fmt"
)

// prefs are the switches: global ones by skill name, and a conversation's own.
type prefs struct{ db *sql.DB }

// global is every skill switched globally (name → on); a skill not in it is on.
func (p prefs) global(ctx context.Context) (map[string]bool, error) {
	return p.scan(ctx, `SELECT name, enabled FROM skill_prefs`)
}

func (p prefs) setGlobal(ctx context.Context, name string, on bool) error {
	_, err := p.db.ExecContext(ctx, `INSERT INTO skill_prefs(name, enabled) VALUES(?, ?)
		ON CONFLICT(name) DO UPDATE SET enabled = excluded.enabled`, name, on)
	if err != nil {
		return fmt.Errorf("switch skill %s: %w", name, err)
	}
	return nil
}

// session is a conversation's own choices (name → on).
func (p prefs) session(ctx context.Context, sessionID string) (map[string]bool, error) {
	return p.scan(ctx, `SELECT name, enabled FROM skill_session_prefs WHERE session_id = ?`, sessionID)
}

// setSession records a conversation's choice; nil forgets it (the global switch holds).
func (p prefs) setSession(ctx context.Context, sessionID, name string, on *bool) error {
	var err error
	if on == nil {
		_, err = p.db.ExecContext(ctx, `DELETE FROM skill_session_prefs WHERE session_id = ? AND name = ?`, sessionID, name)
	} else {
		_, err = p.db.ExecContext(ctx, `INSERT INTO skill_session_prefs(session_id, name, enabled) VALUES(?, ?, ?)
			ON CONFLICT(session_id, name) DO UPDATE SET enabled = excluded.enabled`, sessionID, name, *on)
	}
	if err != nil {
		return fmt.Errorf("switch skill %s in session %s: %w", name, sessionID, err)
	}
	return nil
}

func (p prefs) sessionExists(ctx context.Context, sessionID string) (bool, error) {
	var n int
	err := p.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, sessionID).Scan(&n)
	return n > 0, err
}

func (p prefs) scan(ctx context.Context, q string, args ...any) (map[string]bool, error) {
	out := map[string]bool{}
	if p.db == nil {
		return out, nil
	}
	rows, err := p.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read skill switches: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var on bool
		if err := rows.Scan(&name, &on); err != nil {
			return nil, fmt.Errorf("read skill switches: %w", err)
		}
		out[name] = on
	}
	return out, rows.Err()
}
