package approval

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// Fingerprint is the identity an "always allow" of an MCP tool is bound to: a hash of
// its input schema (key order does not matter) and its server's command or URL.
func Fingerprint(schema json.RawMessage, server string) string {
	canon := bytes.TrimSpace(schema)
	var v any
	if json.Unmarshal(canon, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	h := sha256.New()
	h.Write(canon)
	h.Write([]byte{0})
	h.Write([]byte(server))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// toolOf describes an entry for evaluation, with the MCP fingerprint.
func (s *Service) toolOf(e *tools.Entry) permission.Tool {
	t := permission.Tool{Name: e.Name, Namespace: e.Namespace, ReadOnly: e.ReadOnly, Destructive: e.Destructive, Approval: e.Approval}
	if tools.IsMCPNamespace(e.Namespace) {
		_, servers, _ := s.deps()
		identity := ""
		if servers != nil {
			identity, _ = servers.ServerIdentity(strings.TrimPrefix(e.Namespace, tools.MCPNamespacePrefix))
		}
		t.Fingerprint = Fingerprint(e.InputSchema, identity)
	}
	return t
}

// touchesOf is what a call reaches and whether it edits files. A built-in tool says it
// itself (tools.Typed's Touches; one without says it reaches nothing). For an MCP tool,
// whose arguments Cairn does not know, and for a name no tool has (the rule tester),
// the argument names are read as permission.Extract guesses; such a call never counts as
// an edit. Touches that cannot be read count as a path Cairn cannot place.
func touchesOf(e *tools.Entry, args json.RawMessage) (permission.Targets, []tools.Edit) {
	if e == nil || !e.Typed() {
		return permission.Extract(args), nil
	}
	if e.Touches == nil {
		return permission.Targets{}, nil
	}
	t, err := e.Touches(args)
	if err != nil {
		return permission.Targets{Deep: true}, nil
	}
	return permission.Targets{Paths: t.AllPaths(), URLs: t.URLs, Commands: t.Commands}, t.Edits
}

// previewTimeout bounds reading a tool's preview of its change: a dialog without the
// diff beats a dialog that does not open.
const previewTimeout = 5 * time.Second

// previewed is the edits the dialog shows: the tool's preview of the change against the
// files as they are, when it has one and answers in time, else what its touches say.
func previewed(ctx context.Context, e *tools.Entry, call tools.Call, args json.RawMessage, edits []tools.Edit) []tools.Edit {
	if e == nil || e.Preview == nil || len(edits) == 0 {
		return edits
	}
	pctx, cancel := context.WithTimeout(tools.WithCall(ctx, call), previewTimeout)
	defer cancel()
	p, err := e.Preview(pctx, args)
	if err != nil || len(p) == 0 {
		return edits
	}
	return p
}

// input gathers what evaluating a call of a session needs: its mode, workspace and rules,
// and what the call touches with the edits it makes (touchesOf; e is nil for a tool that
// is not registered).
func (s *Service) input(ctx context.Context, sessionID string, t permission.Tool, e *tools.Entry, args json.RawMessage, hook *tools.Decision) (permission.Input, []tools.Edit, error) {
	mode, err := s.SessionMode(ctx, sessionID)
	if err != nil {
		return permission.Input{}, nil, err
	}
	rules, err := s.rulesFor(ctx, sessionID)
	if err != nil {
		return permission.Input{}, nil, err
	}
	targets, edits := touchesOf(e, args)
	t.Edits = len(edits) > 0
	in := permission.Input{
		Tool: t, Targets: targets, Mode: mode.Mode, SessionID: sessionID, Rules: rules,
		Resolver: s.resolver(t, s.workspace(ctx, sessionID)),
	}
	if hook != nil {
		in.Hook = &permission.Hook{Behavior: permission.Behavior(hook.Behavior), Reason: hook.Reason}
	}
	return in, edits, nil
}

func (s *Service) workspace(ctx context.Context, sessionID string) string {
	ws, _, _ := s.deps()
	if ws == nil || sessionID == "" {
		return ""
	}
	dir, err := ws.Workspace(ctx, sessionID)
	if err != nil {
		s.log.Warn("approval: workspace", "session", sessionID, "err", err)
		return ""
	}
	return dir
}

// Check is the permission step of the pipeline (tools.Permission). Rules and the mode
// decide what they can; otherwise the call is stored as a pending request, announced,
// and Check waits until a window decides, the turn is stopped (ctx) or the service
// closes. Every decision is audited. An error fails closed: the pipeline denies.
func (s *Service) Check(ctx context.Context, req tools.PermissionRequest) (tools.Decision, error) {
	if req.Entry == nil {
		return tools.Decision{}, apperr.New(apperr.Internal, "permission check without a tool")
	}
	sessionID := cmp.Or(req.Call.SessionID, req.Call.Scope.SessionID)
	t := s.toolOf(req.Entry)
	in, edits, err := s.input(ctx, sessionID, t, req.Entry, req.Args, req.Hook)
	if err != nil {
		return tools.Decision{}, err
	}
	v := permission.Evaluate(in)
	if v.Behavior == permission.Ask && v.Classify {
		v = s.classify(ctx, sessionID, req, in)
		if v.Behavior == permission.Ask {
			r := Request{SessionID: sessionID, CallID: req.Call.ID, Tool: t.Name, Args: req.Args, Touches: in.Targets, Mode: in.Mode}
			if err := writeAudit(ctx, s.db, auditFor(r, AuditClassifierAsk, v.Behavior, v.Source, verdictReason(v), "")); err != nil {
				s.log.Warn("approval: audit", "err", err)
			}
		}
	}
	if v.Behavior != permission.Ask {
		r := Request{SessionID: sessionID, CallID: req.Call.ID, Tool: t.Name, Args: req.Args, Touches: in.Targets, Mode: in.Mode}
		decision := AuditAutoAllow
		if v.Behavior == permission.Deny {
			decision = AuditAutoDeny
		}
		if err := writeAudit(ctx, s.db, auditFor(r, decision, v.Behavior, v.Source, verdictReason(v), v.RuleID)); err != nil {
			s.log.Warn("approval: audit", "err", err)
		}
		if v.Source == permission.SourceClassifier {
			s.showClassified(req, r, v)
		}
		return tools.Decision{Behavior: tools.Behavior(v.Behavior), Source: v.Source, Reason: v.Reason}, nil
	}
	return s.ask(ctx, req, sessionID, t, in, edits, v)
}

// ask stores the request, announces it and waits for its end.
func (s *Service) ask(ctx context.Context, req tools.PermissionRequest, sessionID string, t permission.Tool, in permission.Input, edits []tools.Edit, v permission.Verdict) (tools.Decision, error) {
	args := compactJSON(req.Args)
	edits = previewed(ctx, req.Entry, req.Call, args, edits)
	r := Request{
		ID: newID(), SessionID: sessionID, MessageID: req.Call.MessageID, CallID: req.Call.ID,
		Tool: t.Name, Namespace: t.Namespace, Title: req.Entry.Ref().Title, Args: args, Touches: in.Targets, Edits: edits, Guessed: !req.Entry.Typed(),
		ReadOnly: t.ReadOnly, Destructive: t.Destructive, Mode: in.Mode, AskReason: v.Reason,
		AskReasonCode: v.ReasonCode, AskReasonParams: v.ReasonParams,
		Rules: permission.SuggestRules(t, in.Targets), Status: StatusPending, CreatedAt: time.Now().UnixMilli(),
		scope: req.Call.Scope, fingerprint: t.Fingerprint, Agent: req.Call.Scope.Agent,
	}
	if r.Rules == nil {
		r.Rules = []permission.Rule{}
	}
	if tools.IsMCPNamespace(t.Namespace) {
		r.Server = cmp.Or(req.Entry.NamespaceLabel, strings.TrimPrefix(t.Namespace, tools.MCPNamespacePrefix))
	}
	ch := make(chan Request, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return tools.Decision{Behavior: tools.BehaviorDeny, Source: permission.SourceConfig, Reason: "Cairn is closing"}, nil
	}
	s.waiters[r.ID] = waiter{decided: ch, edits: edits}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiters, r.ID)
		s.mu.Unlock()
	}()

	if sessionID != "" {
		// A call asked again after an interruption names the request it resumes.
		_ = s.db.QueryRowContext(ctx, `SELECT id FROM approval_requests WHERE session_id = ? AND call_id = ? AND status = 'resumed'
			ORDER BY decided_at DESC LIMIT 1`, sessionID, r.CallID).Scan(&r.ResumedFrom)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO approval_requests (id, session_id, message_id, call_id, tool, namespace,
		server, args, touches, read_only, destructive, fingerprint, mode, ask_reason, ask_reason_code, ask_reason_params,
		rules, call_scope, status, resumed_from,
		owner_pid, owner_start, owner_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
		r.ID, nullable(sessionID), r.MessageID, r.CallID, r.Tool, r.Namespace, r.Server, string(r.Args), mustJSON(r.Touches),
		r.ReadOnly, r.Destructive, r.fingerprint, string(r.Mode), r.AskReason, r.AskReasonCode, mustJSON(r.AskReasonParams),
		mustJSON(r.Rules), mustJSON(r.scope),
		r.ResumedFrom, s.proc.PID, s.proc.Start, s.owner, r.CreatedAt); err != nil {
		return tools.Decision{}, apperr.Wrap(err, apperr.Internal, "store the approval request")
	}
	// The session's part first, then the dialog: a window that opens the session on the
	// approvals event finds the part already there.
	obs, _ := req.Observer.(PartObserver)
	if obs != nil {
		obs.ApprovalRequested(r.CallID, json.RawMessage(mustJSON(r)))
	}
	s.bus.Publish(events.TopicApprovals, EventRequested, r)
	d := s.wait(ctx, r.ID, ch)
	if d.CallID == "" { // the row is gone or unreadable: keep what the part needs
		d.CallID, d.SessionID, d.Tool, d.Args, d.CreatedAt = r.CallID, r.SessionID, r.Tool, r.Args, r.CreatedAt
	}
	if obs != nil {
		obs.ApprovalDecided(d.CallID, json.RawMessage(mustJSON(d)))
	}
	return toDecision(d), nil
}

// wait blocks until the request ends: a decision delivered by Decide, one written by
// another process (seen by polling the row), a stop, or the service closing.
func (s *Service) wait(ctx context.Context, id string, ch <-chan Request) Request {
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	bg := context.WithoutCancel(ctx)
	for {
		select {
		case d := <-ch:
			return d
		case <-ctx.Done():
			if _, err := s.endPending(bg, id, StatusCancelled, "cancelled", reasonTurnStopped, permission.SourceUserReject); err != nil {
				s.log.Warn("approval: cancel", "request", id, "err", err)
			}
			return s.settled(bg, id, ch)
		case <-s.closing:
			return s.settled(bg, id, ch)
		case <-tick.C:
			r, err := loadRequest(bg, s.db, id)
			switch {
			case errors.Is(err, sql.ErrNoRows): // its session was deleted
				return Request{ID: id, Status: StatusCancelled, DecisionReason: "the session was deleted"}
			case err == nil && r.Status != StatusPending:
				return r
			}
		}
	}
}

// settled is the request's final state after a stop or close: a decision that won the
// race is taken from the channel, else the row is read.
func (s *Service) settled(ctx context.Context, id string, ch <-chan Request) Request {
	select {
	case d := <-ch:
		return d
	default:
	}
	r, err := loadRequest(ctx, s.db, id)
	if err != nil || r.Status == StatusPending {
		r.ID, r.Status, r.DecisionReason = id, StatusCancelled, "the request could not be read"
	}
	return r
}

// toDecision is the pipeline's view of an ended request.
func toDecision(r Request) tools.Decision {
	switch r.Status {
	case StatusAllowed:
		src := tools.SourceUserTemporary
		if r.Decision == AllowAlways {
			src = tools.SourceUserPermanent
		}
		return tools.Decision{Behavior: tools.BehaviorAllow, Source: src, Reason: "the user allowed it (" + string(r.Decision) + ")"}
	case StatusDenied:
		reason := "the user denied it"
		if r.DecisionReason != "" {
			reason += ": " + r.DecisionReason
		}
		return tools.Decision{Behavior: tools.BehaviorDeny, Source: tools.SourceUserReject, Reason: reason}
	case StatusInterrupted:
		return tools.Decision{Behavior: tools.BehaviorDeny, Source: tools.SourceConfig,
			Reason: "Cairn closed before anyone decided; the user can resume the request from the session"}
	default:
		return tools.Decision{Behavior: tools.BehaviorDeny, Source: tools.SourceUserReject,
			Reason: cmp.Or(r.DecisionReason, "the request ended without a decision")}
	}
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("{}")
	}
	if err := json.Compact(&b, raw); err != nil {
		s, _ := json.Marshal(string(raw))
		return s
	}
	return b.Bytes()
}
