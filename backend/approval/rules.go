package approval

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// RuleList is every stored rule, stamped with the approvals topic's seq.
type RuleList struct {
	Seq   uint64            `json:"seq"`
	Rules []permission.Rule `json:"rules"`
}

const ruleCols = "id, behavior, tool, path, command, fingerprint, COALESCE(session_id, ''), source, note, request_id, created_at, updated_at"

func scanRule(sc interface{ Scan(...any) error }) (permission.Rule, error) {
	var r permission.Rule
	var b string
	err := sc.Scan(&r.ID, &b, &r.Tool, &r.Path, &r.Command, &r.Fingerprint, &r.SessionID, &r.Source, &r.Note, &r.RequestID, &r.CreatedAt, &r.UpdatedAt)
	r.Behavior = permission.Behavior(b)
	return r, err
}

func queryRules(ctx context.Context, q querier, where string, args ...any) ([]permission.Rule, error) {
	rows, err := q.QueryContext(ctx, "SELECT "+ruleCols+" FROM permission_rules "+where+" ORDER BY created_at, id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []permission.Rule{}
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// rulesFor returns the rules that may apply in a session: global ones and its own.
func (s *Service) rulesFor(ctx context.Context, sessionID string) ([]permission.Rule, error) {
	rules, err := queryRules(ctx, s.db, "WHERE session_id IS NULL OR session_id = ?", sessionID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read permission rules")
	}
	return rules, nil
}

func insertRule(ctx context.Context, q querier, r permission.Rule) error {
	_, err := q.ExecContext(ctx, `INSERT INTO permission_rules (id, behavior, tool, path, command, fingerprint, session_id,
		source, note, request_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, string(r.Behavior), r.Tool, r.Path, r.Command, r.Fingerprint, nullable(r.SessionID), r.Source, r.Note,
		r.RequestID, r.CreatedAt, r.UpdatedAt)
	return err
}

// ListRules returns every rule: global ones and those of each session.
func (s *Service) ListRules(ctx context.Context) (RuleList, error) {
	seq := s.bus.Seq(events.TopicApprovals)
	rules, err := queryRules(ctx, s.db, "")
	if err != nil {
		return RuleList{}, apperr.Wrap(err, apperr.Internal, "read permission rules")
	}
	return RuleList{Seq: seq, Rules: rules}, nil
}

func (s *Service) publishRules(ctx context.Context) {
	rules, err := queryRules(context.WithoutCancel(ctx), s.db, "")
	if err != nil {
		s.log.Warn("approval: list rules", "err", err)
		return
	}
	s.bus.Publish(events.TopicApprovals, EventRulesChanged, RuleList{Rules: rules})
}

// SaveRule adds a rule (empty ID) or replaces the one with its ID. Rules from the
// settings page have source config unless they say otherwise.
func (s *Service) SaveRule(ctx context.Context, r permission.Rule) (permission.Rule, error) {
	r.Tool, r.Path, r.Command = strings.TrimSpace(r.Tool), strings.TrimSpace(r.Path), strings.TrimSpace(r.Command)
	r.Note = clip(strings.TrimSpace(r.Note), 500)
	if r.Source == "" {
		r.Source = permission.SourceConfig
	}
	if err := r.Validate(); err != nil {
		return permission.Rule{}, apperr.New(apperr.PermissionRuleInvalid, "%s", err.Error()).WithParam("reason", err.Error())
	}
	now := time.Now().UnixMilli()
	r.UpdatedAt = now
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if r.SessionID != "" {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions WHERE id = ?", r.SessionID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return apperr.New(apperr.SessionNotFound, "session %s does not exist", r.SessionID).WithParam("id", r.SessionID)
			}
		}
		if r.ID == "" {
			r.ID, r.CreatedAt = newID(), now
			return insertRule(ctx, tx, r)
		}
		old, err := scanRule(tx.QueryRowContext(ctx, "SELECT "+ruleCols+" FROM permission_rules WHERE id = ?", r.ID))
		if errors.Is(err, sql.ErrNoRows) {
			return ruleNotFound(r.ID)
		}
		if err != nil {
			return err
		}
		r.CreatedAt, r.RequestID = old.CreatedAt, old.RequestID
		_, err = tx.ExecContext(ctx, `UPDATE permission_rules SET behavior = ?, tool = ?, path = ?, command = ?, fingerprint = ?,
			session_id = ?, source = ?, note = ?, updated_at = ? WHERE id = ?`,
			string(r.Behavior), r.Tool, r.Path, r.Command, r.Fingerprint, nullable(r.SessionID), r.Source, r.Note, r.UpdatedAt, r.ID)
		return err
	})
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return permission.Rule{}, ae
		}
		return permission.Rule{}, apperr.Wrap(err, apperr.Internal, "save permission rule")
	}
	s.publishRules(ctx)
	return r, nil
}

// DeleteRule removes a rule; the next check no longer sees it.
func (s *Service) DeleteRule(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, "DELETE FROM permission_rules WHERE id = ?", id)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete permission rule %s", id)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ruleNotFound(id)
	}
	s.publishRules(ctx)
	return nil
}

func ruleNotFound(id string) *apperr.Error {
	return apperr.New(apperr.PermissionRuleNotFound, "permission rule %s does not exist", id).WithParam("id", id)
}

// Sample is a call to test rules against (Settings → Permissions → test).
type Sample struct {
	// Tool is a wire name; a registered tool brings its flags, an unknown one uses the
	// flags given here.
	Tool          string          `json:"tool"`
	Args          json.RawMessage `json:"args,omitempty"`
	SessionID     string          `json:"sessionId,omitempty"`
	Mode          permission.Mode `json:"mode,omitempty"` // "" = the session's (or the default)
	ReadOnly      bool            `json:"readOnly,omitempty"`
	Destructive   bool            `json:"destructive,omitempty"`
	NeedsApproval bool            `json:"needsApproval,omitempty"` // the tool always asks (approval "ask")
	// Rule is a rule being edited, tested as if it were saved (replacing the stored one
	// with its ID). Only tests it alone, without the stored rules.
	Rule *permission.Rule `json:"rule,omitempty"`
	Only bool             `json:"only,omitempty"`
}

// TestResult is the verdict a sample would get and what it was based on.
type TestResult struct {
	permission.Explanation
	Tool permission.Tool `json:"tool"`
	Mode permission.Mode `json:"mode"`
	// Registered is false when the tool is not known and the sample's flags were used.
	Registered bool `json:"registered"`
	// RuleDecides is true when the tested rule is the one that decided.
	RuleDecides bool `json:"ruleDecides"`
}

// TestRule evaluates a sample call without running or storing anything.
func (s *Service) TestRule(ctx context.Context, sm Sample) (TestResult, error) {
	if strings.TrimSpace(sm.Tool) == "" {
		return TestResult{}, apperr.New(apperr.InvalidArgument, "name a tool to test").WithParam("message", "tool is empty")
	}
	const draftID = "draft"
	var draft permission.Rule
	if sm.Rule != nil {
		draft = *sm.Rule
		if draft.Source == "" {
			draft.Source = permission.SourceConfig
		}
		if err := draft.Validate(); err != nil {
			return TestResult{}, apperr.New(apperr.PermissionRuleInvalid, "%s", err.Error()).WithParam("reason", err.Error())
		}
		if draft.ID == "" {
			draft.ID = draftID
		}
	}
	_, _, lookup := s.deps()
	res := TestResult{Tool: permission.Tool{Name: sm.Tool, ReadOnly: sm.ReadOnly, Destructive: sm.Destructive}}
	if sm.NeedsApproval {
		res.Tool.Approval = permission.ApprovalAsk
	}
	var entry *tools.Entry
	if lookup != nil {
		if e, ok := lookup.Lookup(sm.Tool); ok {
			res.Tool, res.Registered, entry = s.toolOf(e), true, e
		}
	}
	if !res.Registered {
		if ns, _, ok := strings.Cut(sm.Tool, "_"); ok && !strings.HasPrefix(sm.Tool, "mcp__") {
			res.Tool.Namespace = ns
		}
	}
	args := sm.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	in, _, err := s.input(ctx, sm.SessionID, res.Tool, entry, args, nil)
	if err != nil {
		return TestResult{}, err
	}
	if sm.Mode != "" {
		if _, ok := permission.ParseMode(string(sm.Mode)); !ok {
			return TestResult{}, apperr.New(apperr.PermissionModeInvalid, "unknown permission mode %q", sm.Mode).WithParam("mode", string(sm.Mode))
		}
		in.Mode = sm.Mode
	}
	if sm.Rule != nil {
		if sm.Only {
			in.Rules = nil
		}
		kept := in.Rules[:0:0]
		for _, r := range in.Rules {
			if r.ID != draft.ID {
				kept = append(kept, r)
			}
		}
		if draft.SessionID == "" || draft.SessionID == sm.SessionID {
			kept = append(kept, draft)
		}
		in.Rules = kept
	}
	res.Mode = in.Mode
	res.Explanation = permission.Explain(in)
	res.RuleDecides = sm.Rule != nil && res.Verdict.RuleID == draft.ID
	return res, nil
}
