package approval

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/pidcheck"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// Service is the approval authority of one data directory. Create one per process
// (service.Services); it is safe for concurrent use.
type Service struct {
	db      *store.DB
	bus     *events.Bus
	log     *slog.Logger
	poll    time.Duration
	home    string
	owner   string         // this instance, in approval_requests.owner_id
	proc    pidcheck.Owner // this process, in owner_pid and owner_start
	closing chan struct{}

	// Set once by New.
	settings   Settings
	workspaces Workspaces
	servers    Servers
	places     Places
	tools      ToolLookup
	classifier Classifier

	mu      sync.Mutex
	closed  bool
	waiters map[string]waiter // request id → the pending request's waiter
}

// waiter is a request pending in this process: where its decision is delivered, and its
// edits as its tool previewed them when it asked (read from the files then), which a
// listing shows without reading them again.
type waiter struct {
	decided chan Request
	edits   []tools.Edit
}

var _ tools.Permission = (*Service)(nil)

// New returns the authority and turns requests a previous process left pending into
// interrupted ones (shown in their sessions with "resume").
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.DB == nil || cfg.Bus == nil {
		return nil, apperr.New(apperr.Internal, "approval: DB and Bus are required")
	}
	s := &Service{
		db: cfg.DB, bus: cfg.Bus, log: cfg.Log, poll: cmp.Or(cfg.PollInterval, time.Second),
		home: cfg.Home, owner: newID(), proc: pidcheck.Self(), closing: make(chan struct{}),
		waiters: map[string]waiter{}, settings: cfg.Settings, workspaces: cfg.Workspaces,
		servers: cfg.Servers, places: cfg.Places, tools: cfg.Tools, classifier: cfg.Classifier,
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.home == "" {
		s.home, _ = os.UserHomeDir()
	}
	if err := s.recoverStale(ctx); err != nil {
		return nil, err
	}
	if err := s.pruneAudit(ctx, cmp.Or(cfg.AuditKeep, 100_000)); err != nil {
		s.log.Warn("approval: prune audit", "err", err)
	}
	return s, nil
}

func (s *Service) deps() (Workspaces, Servers, ToolLookup) {
	return s.workspaces, s.servers, s.tools
}

// Close interrupts the requests this process waits for — they stay resumable — and
// ends their waits. Call it before the chat service stops its runs and before the
// database closes.
func (s *Service) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	ctx := context.Background()
	ids, err := s.openIDs(ctx, "owner_id = ?", s.owner)
	if err != nil {
		s.log.Warn("approval: close", "err", err)
	}
	for _, id := range ids {
		if _, err := s.interrupt(ctx, id, reasonCairnClosed); err != nil {
			s.log.Warn("approval: interrupt on close", "request", id, "err", err)
		}
	}
	close(s.closing)
	return nil
}

// recoverStale interrupts pending requests nobody waits for any more: their process is
// gone (or it is this process, under an earlier instance).
func (s *Service) recoverStale(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, owner_pid, owner_start, owner_id FROM approval_requests WHERE status = 'pending'")
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "read pending approvals")
	}
	var stale []string
	for rows.Next() {
		var id, owner string
		var o pidcheck.Owner
		if err := rows.Scan(&id, &o.PID, &o.Start, &owner); err != nil {
			rows.Close()
			return apperr.Wrap(err, apperr.Internal, "read pending approvals")
		}
		if owner != s.owner && (o.PID == s.proc.PID || o.PID <= 0 || !o.Alive()) {
			stale = append(stale, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return apperr.Wrap(err, apperr.Internal, "read pending approvals")
	}
	for _, id := range stale {
		if _, err := s.interrupt(ctx, id, reasonCairnStopped); err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		s.log.Info("approval: interrupted stale requests", "count", len(stale))
	}
	return nil
}

func (s *Service) openIDs(ctx context.Context, where string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id FROM approval_requests WHERE status = 'pending' AND "+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// interrupt moves one pending request to interrupted, audits and announces it.
func (s *Service) interrupt(ctx context.Context, id string, why auditReason) (bool, error) {
	return s.endPending(ctx, id, StatusInterrupted, "interrupted", why, "")
}

// endPending ends a pending request without a user decision (cancelled, interrupted).
// It reports whether this call ended it.
func (s *Service) endPending(ctx context.Context, id string, st Status, auditDecision string, why auditReason, source string) (bool, error) {
	var r Request
	won := false
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE approval_requests SET status = ?, decision_reason = ?, source = ?, decided_at = ?
			WHERE id = ? AND status = 'pending'`, string(st), why.Text, source, time.Now().UnixMilli(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		won = true
		if r, err = loadRequest(ctx, tx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx, auditFor(r, auditDecision, permission.Deny, cmp.Or(source, permission.SourceConfig), why, ""))
	})
	if err != nil {
		return false, apperr.Wrap(err, apperr.Internal, "end approval request %s", id)
	}
	if won {
		s.bus.Publish(events.TopicApprovals, EventDecided, r)
	}
	return won, nil
}

// SessionMode returns a session's permission mode: its own, else the default setting.
func (s *Service) SessionMode(ctx context.Context, sessionID string) (SessionMode, error) {
	out := SessionMode{SessionID: sessionID, Mode: s.defaultMode(ctx)}
	if sessionID == "" {
		return out, nil
	}
	var m string
	err := s.db.QueryRowContext(ctx, "SELECT mode FROM session_permissions WHERE session_id = ?", sessionID).Scan(&m)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return out, nil
	case err != nil:
		return out, apperr.Wrap(err, apperr.Internal, "read the permission mode of session %s", sessionID)
	}
	if mode, ok := permission.ParseMode(m); ok {
		out.Mode, out.Own = mode, true
	}
	return out, nil
}

func (s *Service) defaultMode(ctx context.Context) permission.Mode {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	if st == nil {
		return permission.ModeDefault
	}
	if m, ok := permission.ParseMode(st.String(ctx, SettingDefaultMode)); ok {
		return m
	}
	return permission.ModeDefault
}

// SetSessionMode gives a session its own mode; "" makes it follow the default setting
// again. The change applies to the next permission check.
func (s *Service) SetSessionMode(ctx context.Context, sessionID, mode string) (SessionMode, error) {
	if strings.TrimSpace(sessionID) == "" {
		return SessionMode{}, apperr.New(apperr.SessionNotFound, "no session given").WithParam("id", sessionID)
	}
	var err error
	if mode == "" {
		_, err = s.db.ExecContext(ctx, "DELETE FROM session_permissions WHERE session_id = ?", sessionID)
	} else {
		m, ok := permission.ParseMode(mode)
		if !ok {
			return SessionMode{}, apperr.New(apperr.PermissionModeInvalid, "unknown permission mode %q", mode).WithParam("mode", mode)
		}
		var exists int
		if e := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions WHERE id = ?", sessionID).Scan(&exists); e != nil {
			return SessionMode{}, apperr.Wrap(e, apperr.Internal, "find session %s", sessionID)
		}
		if exists == 0 {
			return SessionMode{}, apperr.New(apperr.SessionNotFound, "session %s does not exist", sessionID).WithParam("id", sessionID)
		}
		_, err = s.db.ExecContext(ctx, `INSERT INTO session_permissions(session_id, mode, updated_at) VALUES (?, ?, ?)
			ON CONFLICT(session_id) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at`,
			sessionID, string(m), time.Now().UnixMilli())
	}
	if err != nil {
		return SessionMode{}, apperr.Wrap(err, apperr.Internal, "set the permission mode of session %s", sessionID)
	}
	out, err := s.SessionMode(ctx, sessionID)
	if err != nil {
		return out, err
	}
	s.bus.Publish(events.TopicApprovals, EventModeChanged, out)
	return out, nil
}

// PendingForSession returns the session's requests waiting for a decision, oldest
// first: the session is awaiting-approval while there is one.
func (s *Service) PendingForSession(ctx context.Context, sessionID string) ([]Request, error) {
	return s.queryRequests(ctx, "status = 'pending' AND session_id = ?", sessionID)
}

// ListPending returns every pending request (the dialogs to show), stamped with the
// approvals topic's seq.
func (s *Service) ListPending(ctx context.Context) (Pending, error) {
	seq := s.bus.Seq(events.TopicApprovals)
	reqs, err := s.queryRequests(ctx, "status = 'pending'")
	return Pending{Seq: seq, Requests: reqs}, err
}

// ListSession returns all requests of a session, oldest first — pending, decided and
// interrupted (offer "resume") — stamped with the approvals topic's seq.
func (s *Service) ListSession(ctx context.Context, sessionID string) (Pending, error) {
	seq := s.bus.Seq(events.TopicApprovals)
	reqs, err := s.queryRequests(ctx, "session_id = ?", sessionID)
	return Pending{Seq: seq, Requests: reqs}, err
}

// Get returns one request.
func (s *Service) Get(ctx context.Context, id string) (Request, error) {
	r, err := loadRequest(ctx, s.db, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Request{}, notFound(id)
	}
	if err != nil {
		return Request{}, apperr.Wrap(err, apperr.Internal, "read approval request %s", id)
	}
	return r, nil
}

// describe adds what a stored request does not keep: the tool's title, a built-in tool's
// edits (as previewed when a pending one asked) and whether its touches were guessed,
// from the registered tool and the stored arguments (a tool that is gone counts as guessed).
func (s *Service) describe(r *Request) {
	r.Guessed = true
	if _, _, lookup := s.deps(); lookup != nil {
		if e, ok := lookup.Lookup(r.Tool); ok {
			r.Title, r.Guessed = e.Ref().Title, !e.Typed()
			_, r.Edits = touchesOf(e, r.Args)
		}
	}
	s.mu.Lock()
	if w, ok := s.waiters[r.ID]; ok {
		r.Edits = w.edits
	}
	s.mu.Unlock()
}

// refOf names a registered tool for people; the zero ToolRef for one that is gone.
func (s *Service) refOf(name string) tools.ToolRef {
	if _, _, lookup := s.deps(); lookup != nil {
		if e, ok := lookup.Lookup(name); ok {
			return e.Ref()
		}
	}
	return tools.ToolRef{}
}

func notFound(id string) *apperr.Error {
	return apperr.New(apperr.ApprovalNotFound, "approval request %s does not exist", id).WithParam("id", id)
}

func (s *Service) queryRequests(ctx context.Context, where string, args ...any) ([]Request, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+requestCols+" FROM approval_requests WHERE "+where+" ORDER BY created_at, id", args...)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list approval requests")
	}
	defer rows.Close()
	out := []Request{}
	for rows.Next() {
		r, err := scanRequest(rows)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "list approval requests")
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list approval requests")
	}
	for i := range out {
		s.describe(&out[i])
	}
	return out, nil
}

// querier is *sql.DB, *store.DB or *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const requestCols = `id, COALESCE(session_id, ''), message_id, call_id, tool, namespace, server, args, touches,
	read_only, destructive, fingerprint, mode, ask_reason, ask_reason_code, ask_reason_params, rules, call_scope, status, COALESCE(decision, ''),
	decision_reason, source, window_name, rule_ids, resumed_from, created_at, COALESCE(decided_at, 0)`

func scanRequest(sc interface{ Scan(...any) error }) (Request, error) {
	var r Request
	var args, touches, rules, scope, ruleIDs, mode, status, decision, reasonParams string
	if err := sc.Scan(&r.ID, &r.SessionID, &r.MessageID, &r.CallID, &r.Tool, &r.Namespace, &r.Server, &args, &touches,
		&r.ReadOnly, &r.Destructive, &r.fingerprint, &mode, &r.AskReason, &r.AskReasonCode, &reasonParams, &rules, &scope, &status, &decision,
		&r.DecisionReason, &r.Source, &r.Window, &ruleIDs, &r.ResumedFrom, &r.CreatedAt, &r.DecidedAt); err != nil {
		return r, err
	}
	r.Args = json.RawMessage(args)
	r.Mode, r.Status, r.Decision = permission.Mode(mode), Status(status), Choice(decision)
	_ = json.Unmarshal([]byte(touches), &r.Touches)
	_ = json.Unmarshal([]byte(rules), &r.Rules)
	_ = json.Unmarshal([]byte(scope), &r.scope)
	r.Agent = r.scope.Agent
	_ = json.Unmarshal([]byte(ruleIDs), &r.RuleIDs)
	_ = json.Unmarshal([]byte(reasonParams), &r.AskReasonParams)
	if r.Rules == nil {
		r.Rules = []permission.Rule{}
	}
	return r, nil
}

func loadRequest(ctx context.Context, q querier, id string) (Request, error) {
	return scanRequest(q.QueryRowContext(ctx, "SELECT "+requestCols+" FROM approval_requests WHERE id = ?", id))
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// nullable stores "" as NULL (a call without a session; a rule for every session).
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
