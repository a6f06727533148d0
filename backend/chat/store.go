package chat

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
)

// querier is *sql.DB or *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

const sessionCols = "id, kind, title, COALESCE(provider_id, ''), model, system_prompt, temperature, toolsets, reasoning_effort, reasoning_budget, created_at, updated_at"

// sessionSelect is what a read of sessions takes: sessionCols (what an insert writes)
// and the columns the database keeps itself (active_at by trigger) or that only their
// own calls change (pin, archive).
const sessionSelect = sessionCols + ", active_at, pinned_at, archived_at, chosen_root_id, top_p, max_tokens, context_messages, COALESCE(parent_session_id, ''), parent_call_id"

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var temp, topP sql.NullFloat64
	var toolsets string
	var pinned, archived int64
	if err := sc.Scan(&s.ID, &s.Kind, &s.Title, &s.ProviderID, &s.Model, &s.SystemPrompt, &temp, &toolsets, &s.Reasoning.Effort, &s.Reasoning.Budget, &s.CreatedAt, &s.UpdatedAt,
		&s.ActiveAt, &pinned, &archived, &s.ChosenRootID, &topP, &s.MaxTokens, &s.ContextMessages, &s.ParentID, &s.ParentCallID); err != nil {
		return s, err
	}
	if topP.Valid {
		v := topP.Float64
		s.TopP = &v
	}
	s.Pinned, s.Archived = pinned > 0, archived > 0
	if temp.Valid {
		t := temp.Float64
		s.Temperature = &t
	}
	if json.Unmarshal([]byte(toolsets), &s.Toolsets) != nil || s.Toolsets == nil {
		s.Toolsets = []string{}
	}
	return s, nil
}

func loadSession(ctx context.Context, q querier, id string) (Session, error) {
	s, err := scanSession(q.QueryRowContext(ctx, "SELECT "+sessionSelect+" FROM sessions WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, apperr.New(apperr.SessionNotFound, "no session %s", id).WithParam("id", id)
	}
	if err != nil {
		return Session{}, apperr.Wrap(err, apperr.Internal, "read session")
	}
	return s, nil
}

// saveParams writes a session's request parameters that sessionCols does not hold.
func saveParams(ctx context.Context, q querier, s Session) error {
	_, err := q.ExecContext(ctx, "UPDATE sessions SET top_p = ?, max_tokens = ?, context_messages = ? WHERE id = ?",
		nullTemp(s.TopP), s.MaxTokens, s.ContextMessages, s.ID)
	return err
}

func nullTemp(t *float64) any {
	if t == nil {
		return nil
	}
	return *t
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func toolsetsJSON(ts []string) string {
	if ts == nil {
		ts = []string{}
	}
	b, _ := json.Marshal(ts)
	return string(b)
}

const messageCols = "id, session_id, seq, role, status, provider_id, model, finish_reason, usage, error, created_at, updated_at, parent_id, chosen_child_id"

func scanMessage(sc interface{ Scan(...any) error }) (Message, error) {
	var m Message
	var usage, errJSON, parent sql.NullString
	if err := sc.Scan(&m.ID, &m.SessionID, &m.Seq, &m.Role, &m.Status, &m.ProviderID, &m.Model, &m.FinishReason, &usage, &errJSON, &m.CreatedAt, &m.UpdatedAt,
		&parent, &m.ChosenChildID); err != nil {
		return m, err
	}
	m.ParentID = parent.String
	if usage.Valid && usage.String != "" {
		var u llm.Usage
		if json.Unmarshal([]byte(usage.String), &u) == nil {
			m.Usage = &u
		}
	}
	if errJSON.Valid && errJSON.String != "" {
		var e apperr.Error
		if json.Unmarshal([]byte(errJSON.String), &e) == nil {
			m.Error = &e
		}
	}
	return m, nil
}

// partData is the JSON stored in parts.data.
type partData struct {
	Tool   *ToolInfo       `json:"tool,omitempty"`
	Status *StatusInfo     `json:"status,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	// Attachment is an attachment part's file.
	Attachment *Attachment `json:"attachment,omitempty"`
}

func encodePartData(p Part) any {
	if p.Tool == nil && p.Status == nil && len(p.Data) == 0 && p.Attachment == nil {
		return nil
	}
	b, _ := json.Marshal(partData{Tool: p.Tool, Status: p.Status, Data: p.Data, Attachment: p.Attachment})
	return string(b)
}

const partCols = "id, message_id, idx, round, type, state, text, data, created_at, updated_at"

func scanPart(sc interface{ Scan(...any) error }) (Part, error) {
	var p Part
	var data sql.NullString
	if err := sc.Scan(&p.ID, &p.MessageID, &p.Index, &p.Round, &p.Type, &p.State, &p.Text, &data, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return p, err
	}
	if data.Valid && data.String != "" {
		var d partData
		if json.Unmarshal([]byte(data.String), &d) == nil {
			p.Tool, p.Status, p.Data, p.Attachment = d.Tool, d.Status, d.Data, d.Attachment
		}
	}
	return p, nil
}

func insertPart(ctx context.Context, q querier, p Part) error {
	_, err := q.ExecContext(ctx, "INSERT INTO parts("+partCols+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		p.ID, p.MessageID, p.Index, p.Round, string(p.Type), p.State, p.Text, encodePartData(p), p.CreatedAt, p.UpdatedAt)
	return err
}

func updatePart(ctx context.Context, q querier, p Part) error {
	_, err := q.ExecContext(ctx, "UPDATE parts SET state = ?, text = ?, data = ?, updated_at = ? WHERE id = ?",
		p.State, p.Text, encodePartData(p), p.UpdatedAt, p.ID)
	return err
}

// loadMessages reads every message of a session (all branches) with their parts, in the
// order they were written; Path picks the conversation shown out of them.
func loadMessages(ctx context.Context, q querier, sessionID string) ([]Message, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? ORDER BY seq", sessionID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read messages")
	}
	var msgs []Message
	byID := map[string]int{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			rows.Close()
			return nil, apperr.Wrap(err, apperr.Internal, "read messages")
		}
		m.Parts = []Part{}
		byID[m.ID] = len(msgs)
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read messages")
	}
	if len(msgs) == 0 {
		return []Message{}, nil
	}
	prow, err := q.QueryContext(ctx, "SELECT p.id, p.message_id, p.idx, p.round, p.type, p.state, p.text, p.data, p.created_at, p.updated_at "+
		"FROM parts p JOIN messages m ON m.id = p.message_id WHERE m.session_id = ? ORDER BY m.seq, p.idx", sessionID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read parts")
	}
	defer prow.Close()
	for prow.Next() {
		p, err := scanPart(prow)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read parts")
		}
		if i, ok := byID[p.MessageID]; ok {
			msgs[i].Parts = append(msgs[i].Parts, p)
		}
	}
	return msgs, prow.Err()
}

// escapeLike escapes LIKE wildcards so a search matches the text literally.
func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// stmtCache keeps prepared statements: with modernc.org/sqlite, parsing a statement costs
// tens of microseconds, which adds up on the path to the first token and on every
// streamed flush.
type stmtCache struct {
	db     *sql.DB
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	if c.closed {
		return nil, errors.New("chat: statement cache closed")
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m, c.closed = nil, true
}

// cachedQ is a querier whose statements come from the cache, bound to tx when it is set.
type cachedQ struct {
	c  *stmtCache
	tx *sql.Tx
}

func (q cachedQ) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	st, err := q.c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if q.tx != nil {
		return q.tx.StmtContext(ctx, st), nil
	}
	return st, nil
}

func (q cachedQ) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (q cachedQ) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (q cachedQ) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := q.stmt(ctx, query)
	if err != nil {
		// Let database/sql produce the same error in a *sql.Row.
		if q.tx != nil {
			return q.tx.QueryRowContext(ctx, query, args...)
		}
		return q.c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
