package approval

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// Limits on what a window sends.
const (
	maxReasonLen = 2000
	maxWindowLen = 100
)

// Decide applies a window's answer to a pending request. It is applied only if the
// request is still pending, in one transaction (`UPDATE … WHERE status = 'pending'`):
// the first decision wins and every later one gets approval_already_decided with what
// was decided, when and by which window. The decision, the rules it creates and its
// audit entry are committed before the waiting call resumes; one approvals event then
// closes the dialog in every window.
func (s *Service) Decide(ctx context.Context, id, choice, reason, window string) (Request, error) {
	c, ok := ParseChoice(choice)
	if !ok {
		return Request{}, apperr.New(apperr.ApprovalDecisionInvalid, "unknown decision %q", choice).WithParam("decision", choice)
	}
	reason, window = clip(strings.TrimSpace(reason), maxReasonLen), clip(strings.TrimSpace(window), maxWindowLen)
	var out Request
	var created []permission.Rule
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		r, err := loadRequest(ctx, tx, id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return err
		}
		if r.Status != StatusPending {
			return alreadyDecided(r)
		}
		if (c == AllowSession || c == AllowAlways) && len(r.Rules) == 0 {
			return apperr.New(apperr.ApprovalRuleUnavailable, "no rule can cover this call of %s; allow it once or deny it", r.Tool).
				WithParam("tool", r.Tool)
		}
		now := time.Now().UnixMilli()
		st, source := StatusAllowed, permission.SourceUserTemporary
		switch c {
		case AllowAlways:
			source = permission.SourceUserPermanent
		case Deny:
			st, source = StatusDenied, permission.SourceUserReject
		}
		for _, tmpl := range r.Rules {
			if c != AllowSession && c != AllowAlways {
				break
			}
			rule := tmpl
			rule.ID, rule.Behavior, rule.Source, rule.RequestID = newID(), permission.Allow, source, r.ID
			rule.CreatedAt, rule.UpdatedAt = now, now
			if c == AllowSession {
				rule.SessionID = r.SessionID
			}
			if err := insertRule(ctx, tx, rule); err != nil {
				return err
			}
			created = append(created, rule)
			r.RuleIDs = append(r.RuleIDs, rule.ID)
		}
		res, err := tx.ExecContext(ctx, `UPDATE approval_requests SET status = ?, decision = ?, decision_reason = ?, source = ?,
			window_name = ?, rule_ids = ?, decided_at = ? WHERE id = ? AND status = 'pending'`,
			string(st), string(c), reason, source, window, mustJSON(nonNil(r.RuleIDs)), now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errLost
		}
		r.Status, r.Decision, r.DecisionReason, r.Source, r.Window, r.DecidedAt = st, c, reason, source, window, now
		ruleID := ""
		if len(r.RuleIDs) > 0 {
			ruleID = r.RuleIDs[0]
		}
		behavior := permission.Allow
		if st == StatusDenied {
			behavior = permission.Deny
		}
		if err := writeAudit(ctx, tx, auditFor(r, string(c), behavior, source, userReason(reason), ruleID)); err != nil {
			return err
		}
		out = r
		return nil
	})
	if err != nil {
		return Request{}, txErr(ctx, s.db, id, err, "decide")
	}
	s.bus.Publish(events.TopicApprovals, EventDecided, out)
	if len(created) > 0 {
		s.publishRules(ctx)
	}
	s.mu.Lock()
	ch := s.waiters[id].decided
	s.mu.Unlock()
	if ch != nil {
		select {
		case ch <- out:
		default:
		}
	}
	return out, nil
}

var errLost = errors.New("the request was decided concurrently")

// alreadyDecided is the answer to every decision after the first: it says what was
// decided (or what ended the request), when and by which window.
func alreadyDecided(r Request) *apperr.Error {
	if r.Status == StatusInterrupted {
		return apperr.New(apperr.ApprovalInterrupted, "approval request %s was interrupted; resume it to be asked again", r.ID).
			WithParam("id", r.ID).WithParam("tool", r.Tool)
	}
	what := string(r.Decision)
	if what == "" {
		what = string(r.Status)
	}
	window := r.Window
	if window == "" {
		window = "cairn"
	}
	at := ""
	if r.DecidedAt > 0 {
		at = time.UnixMilli(r.DecidedAt).Format(time.RFC3339)
	}
	return apperr.New(apperr.ApprovalAlreadyDecided, "approval request %s was already decided: %s by %s at %s", r.ID, what, window, at).
		WithParam("id", r.ID).WithParam("tool", r.Tool).WithParam("decision", what).WithParam("status", string(r.Status)).
		WithParam("window", window).WithParam("decidedAt", at).WithParam("decidedAtMs", r.DecidedAt)
}

// Resume asks again about a request that was interrupted (the process ended while it
// waited). Nothing runs unasked: the request is marked resumed — once, the first window
// wins — and the chat service sends the call through the pipeline again, where
// permission evaluates it afresh and, if it still needs approval, opens a new request
// that names this one. run is how the caller sends the call again (chat's ResumeCall:
// in its session and message, continuing the answer); it returns once the call is under
// way, and when it fails the request is interrupted again, so it stays resumable.
func (s *Service) Resume(ctx context.Context, id, window string, run func(context.Context, tools.Call) error) (Request, error) {
	if run == nil {
		return Request{}, apperr.New(apperr.ApprovalResumeUnavailable, "resuming calls is not available in this process")
	}
	window = clip(strings.TrimSpace(window), maxWindowLen)
	var out Request
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		r, err := loadRequest(ctx, tx, id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return err
		}
		if r.Status != StatusInterrupted {
			return alreadyDecided(r)
		}
		now := time.Now().UnixMilli()
		res, err := tx.ExecContext(ctx, `UPDATE approval_requests SET status = 'resumed', window_name = ?, decided_at = ?
			WHERE id = ? AND status = 'interrupted'`, window, now, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return errLost
		}
		r.Status, r.Window, r.DecidedAt = StatusResumed, window, now
		if err := writeAudit(ctx, tx, auditFor(r, "resumed", permission.Ask, permission.SourceUserTemporary, reasonResumed, "")); err != nil {
			return err
		}
		out = r
		return nil
	})
	if err != nil {
		return Request{}, txErr(ctx, s.db, id, err, "resume")
	}
	s.bus.Publish(events.TopicApprovals, EventResumed, out)
	if err := run(ctx, out.Call()); err != nil {
		// Nothing ran: make it resumable again.
		if _, rerr := s.db.ExecContext(context.WithoutCancel(ctx),
			"UPDATE approval_requests SET status = 'interrupted', window_name = '' WHERE id = ? AND status = 'resumed'", id); rerr != nil {
			s.log.Warn("approval: undo resume", "request", id, "err", rerr)
		}
		if r, lerr := loadRequest(context.WithoutCancel(ctx), s.db, id); lerr == nil {
			s.bus.Publish(events.TopicApprovals, EventDecided, r)
		}
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return Request{}, ae
		}
		return Request{}, apperr.Wrap(err, apperr.Internal, "resume the call of %s", out.Tool)
	}
	return out, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// txErr turns the error of a decision's transaction into what the window sees: a lost
// race (another process decided between our read and our update) is reported like any
// later decision.
func txErr(ctx context.Context, db querier, id string, err error, what string) error {
	if errors.Is(err, errLost) {
		if r, lerr := loadRequest(ctx, db, id); lerr == nil {
			return alreadyDecided(r)
		}
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae
	}
	return apperr.Wrap(err, apperr.Internal, "%s approval request %s", what, id)
}
