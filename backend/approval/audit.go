package approval

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/permission"
	"github.com/cairn-app/cairn/backend/tools"
)

// AuditEntry is one permission decision: automatic (a rule, the mode, the defaults, a
// hook) or a user's (with the window it came from).
type AuditEntry struct {
	ID           int64  `json:"id"`
	At           int64  `json:"at"` // unix ms
	RequestID    string `json:"requestId,omitempty"`
	SessionID    string `json:"sessionId,omitempty"`
	SessionTitle string `json:"sessionTitle,omitempty"`
	CallID       string `json:"callId,omitempty"`
	Tool         string `json:"tool"`
	// The tool's names for people while it is registered (tools.ToolRef).
	tools.ToolRef
	ArgsSummary string `json:"argsSummary"`
	// Decision is allow_once, allow_session, allow_always or deny for a user's answer;
	// auto_allow or auto_deny for one made by a rule, the mode, the defaults, a hook or the
	// classifier; classifier_ask when auto mode's classifier passed the call to the user;
	// cancelled, interrupted or resumed when a request ended otherwise.
	Decision string `json:"decision"`
	Behavior string `json:"behavior"` // allow | deny | ask
	Source   string `json:"source"`
	Window   string `json:"window,omitempty"`
	// Reason is the English text (export, search, entries from before reason codes);
	// ReasonCode names it for every locale and ReasonParams fill it (see auditReason).
	// A user's own words for a denial have no code: they are shown as written.
	Reason       string            `json:"reason,omitempty"`
	ReasonCode   string            `json:"reasonCode,omitempty"`
	ReasonParams map[string]string `json:"reasonParams,omitempty"`
	RuleID       string            `json:"ruleId,omitempty"`
	Mode         string            `json:"mode,omitempty"`
}

// auditReason is why a decision was made. Code is a verdict's (permission.ReasonCodes,
// approval.reasons.<code> in the windows) or one of the service's own (AuditReasonCodes,
// permissions.audit.reasons.<code>); Text is the English for the model, logs and export.
type auditReason struct {
	Code   string
	Params map[string]string
	Text   string
}

// Why the approval service itself ended a request.
var (
	reasonTurnStopped  = auditReason{Code: "turn_stopped", Text: "the turn was stopped before anyone decided"}
	reasonCairnClosed  = auditReason{Code: "cairn_closed", Text: "Cairn closed before anyone decided"}
	reasonCairnStopped = auditReason{Code: "cairn_stopped", Text: "Cairn stopped before anyone decided"}
	reasonResumed      = auditReason{Code: "resumed", Text: "asked again after an interruption"}
)

// AuditReasonCodes lists the codes of the reasons the approval service gives itself; each
// has a text in every locale under permissions.audit.reasons (a test checks them).
func AuditReasonCodes() []string {
	return []string{reasonTurnStopped.Code, reasonCairnClosed.Code, reasonCairnStopped.Code, reasonResumed.Code}
}

// verdictReason is the reason of an automatic decision, as the permission engine gave it.
func verdictReason(v permission.Verdict) auditReason {
	return auditReason{Code: v.ReasonCode, Params: v.ReasonParams, Text: v.Reason}
}

// userReason is what a user typed with a decision: their words, in no locale's phrasing.
func userReason(text string) auditReason { return auditReason{Text: text} }

// The decisions of the audit log that nobody was asked about.
const (
	AuditAutoAllow = "auto_allow"
	AuditAutoDeny  = "auto_deny"
	// AuditClassifierAsk: auto mode's classifier did not allow the call (its reason, or
	// why its answer did not count); the user's decision follows as its own entry.
	AuditClassifierAsk = "classifier_ask"
)

// maxSummary bounds the arguments summary of an audit entry (runes).
const maxSummary = 500

func auditFor(r Request, decision string, b permission.Behavior, source string, why auditReason, ruleID string) AuditEntry {
	summary := r.Touches.Describe()
	if summary == "" {
		summary = string(compactJSON(r.Args))
	}
	if utf8.RuneCountInString(summary) > maxSummary {
		summary = string([]rune(summary)[:maxSummary]) + "…"
	}
	return AuditEntry{
		At: time.Now().UnixMilli(), RequestID: r.ID, SessionID: r.SessionID, CallID: r.CallID, Tool: r.Tool,
		ArgsSummary: summary, Decision: decision, Behavior: string(b), Source: source, Window: r.Window,
		Reason: why.Text, ReasonCode: why.Code, ReasonParams: why.Params, RuleID: ruleID, Mode: string(r.Mode),
	}
}

// writeAudit appends an entry; the session's title is copied so the entry outlives it.
func writeAudit(ctx context.Context, q querier, e AuditEntry) error {
	_, err := q.ExecContext(ctx, `INSERT INTO approval_audit (at, request_id, session_id, session_title, call_id, tool,
		args_summary, decision, behavior, source, window_name, reason, reason_code, reason_params, rule_id, mode)
		VALUES (?, ?, ?, COALESCE((SELECT title FROM sessions WHERE id = ?), ''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.At, e.RequestID, e.SessionID, e.SessionID, e.CallID, e.Tool, e.ArgsSummary, e.Decision, e.Behavior, e.Source,
		e.Window, e.Reason, e.ReasonCode, paramsJSON(e.ReasonParams), e.RuleID, e.Mode)
	return err
}

// paramsJSON is a reason's parameters as stored: a JSON object, never null.
func paramsJSON(p map[string]string) string {
	if len(p) == 0 {
		return "{}"
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func (s *Service) pruneAudit(ctx context.Context, keep int) error {
	_, err := s.db.ExecContext(ctx, "DELETE FROM approval_audit WHERE id <= (SELECT MAX(id) FROM approval_audit) - ?", keep)
	return err
}

// AuditQuery filters the audit log; zero values filter nothing.
type AuditQuery struct {
	// Text is searched in the tool, arguments, session title, reason, window, decision
	// and source (case-insensitive for Latin letters).
	Text      string `json:"text,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Decision  string `json:"decision,omitempty"`
	Source    string `json:"source,omitempty"`
	Since     int64  `json:"since,omitempty"` // unix ms, inclusive
	Until     int64  `json:"until,omitempty"` // unix ms, exclusive
	// UserOnly keeps the decisions a person made (or that ended a request).
	UserOnly bool `json:"userOnly,omitempty"`
	// Before pages backwards: entries with a smaller id (AuditPage.Next).
	Before int64 `json:"before,omitempty"`
}

// AuditPage is a page of the log, newest first; Next is the Before of the next page
// (0 = no more).
type AuditPage struct {
	Entries []AuditEntry `json:"entries"`
	Next    int64        `json:"next,omitempty"`
}

// Audit page sizes.
const (
	defaultAuditLimit = 100
	maxAuditLimit     = 1000
	maxExportRows     = 100_000
)

func (q AuditQuery) where() (string, []any) {
	var conds []string
	var args []any
	if t := strings.TrimSpace(q.Text); t != "" {
		like := "%" + escapeLike(t) + "%"
		conds = append(conds, `(tool LIKE ? ESCAPE '\' OR args_summary LIKE ? ESCAPE '\' OR session_title LIKE ? ESCAPE '\'
			OR reason LIKE ? ESCAPE '\' OR window_name LIKE ? ESCAPE '\' OR decision LIKE ? ESCAPE '\' OR source LIKE ? ESCAPE '\')`)
		for i := 0; i < 7; i++ {
			args = append(args, like)
		}
	}
	eq := func(col, v string) {
		if v = strings.TrimSpace(v); v != "" {
			conds = append(conds, col+" = ?")
			args = append(args, v)
		}
	}
	eq("session_id", q.SessionID)
	eq("tool", q.Tool)
	eq("decision", q.Decision)
	eq("source", q.Source)
	if q.Since > 0 {
		conds = append(conds, "at >= ?")
		args = append(args, q.Since)
	}
	if q.Until > 0 {
		conds = append(conds, "at < ?")
		args = append(args, q.Until)
	}
	if q.UserOnly {
		conds = append(conds, "decision NOT IN ('auto_allow', 'auto_deny', 'classifier_ask')")
	}
	if q.Before > 0 {
		conds = append(conds, "id < ?")
		args = append(args, q.Before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

// ListAudit returns the newest matching entries (limit 1..1000, default 100).
func (s *Service) ListAudit(ctx context.Context, q AuditQuery, limit int) (AuditPage, error) {
	if limit <= 0 {
		limit = defaultAuditLimit
	}
	limit = min(limit, maxAuditLimit)
	entries, err := s.queryAudit(ctx, q, limit+1)
	if err != nil {
		return AuditPage{}, err
	}
	page := AuditPage{Entries: entries}
	if len(entries) > limit {
		page.Entries = entries[:limit]
		page.Next = page.Entries[limit-1].ID
	}
	return page, nil
}

func (s *Service) queryAudit(ctx context.Context, q AuditQuery, limit int) ([]AuditEntry, error) {
	where, args := q.where()
	rows, err := s.db.QueryContext(ctx, `SELECT id, at, request_id, session_id, session_title, call_id, tool, args_summary,
		decision, behavior, source, window_name, reason, reason_code, reason_params, rule_id, mode FROM approval_audit`+where+
		" ORDER BY id DESC LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read the audit log")
	}
	defer rows.Close()
	out := []AuditEntry{}
	for rows.Next() {
		var e AuditEntry
		var params string
		if err := rows.Scan(&e.ID, &e.At, &e.RequestID, &e.SessionID, &e.SessionTitle, &e.CallID, &e.Tool, &e.ArgsSummary,
			&e.Decision, &e.Behavior, &e.Source, &e.Window, &e.Reason, &e.ReasonCode, &params, &e.RuleID, &e.Mode); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read the audit log")
		}
		if json.Unmarshal([]byte(params), &e.ReasonParams) != nil || len(e.ReasonParams) == 0 {
			e.ReasonParams = nil // unreadable parameters: the English text still says it
		}
		e.ToolRef = s.refOf(e.Tool)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Export is a file for the user to save.
type Export struct {
	FileName string `json:"fileName"`
	MimeType string `json:"mimeType"`
	Content  string `json:"content"`
	Count    int    `json:"count"`
}

// ExportAudit writes the matching entries (newest first, up to 100 000) as "json" or
// "csv". CSV cells that a spreadsheet would run as a formula are prefixed with '.
func (s *Service) ExportAudit(ctx context.Context, format string, q AuditQuery) (Export, error) {
	format = strings.ToLower(strings.TrimSpace(format))
	if format != "json" && format != "csv" {
		return Export{}, apperr.New(apperr.InvalidArgument, "export format must be json or csv, not %q", format).
			WithParam("message", "format must be json or csv")
	}
	q.Before = 0
	entries, err := s.queryAudit(ctx, q, maxExportRows)
	if err != nil {
		return Export{}, err
	}
	name := "cairn-approval-audit-" + time.Now().Format("20060102-150405") + "." + format
	if format == "json" {
		b, err := json.MarshalIndent(entries, "", "  ")
		if err != nil {
			return Export{}, apperr.Wrap(err, apperr.Internal, "export the audit log")
		}
		return Export{FileName: name, MimeType: "application/json", Content: string(b) + "\n", Count: len(entries)}, nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"id", "time", "session_id", "session_title", "tool", "args_summary", "decision", "behavior",
		"source", "window", "reason", "rule_id", "request_id", "call_id", "mode", "reason_code", "reason_params"})
	for _, e := range entries {
		_ = w.Write([]string{strconv.FormatInt(e.ID, 10), time.UnixMilli(e.At).UTC().Format(time.RFC3339Nano), e.SessionID,
			cell(e.SessionTitle), e.Tool, cell(e.ArgsSummary), e.Decision, e.Behavior, e.Source, cell(e.Window), cell(e.Reason),
			e.RuleID, e.RequestID, e.CallID, e.Mode, e.ReasonCode, cell(paramsJSON(e.ReasonParams))})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return Export{}, apperr.Wrap(err, apperr.Internal, "export the audit log")
	}
	return Export{FileName: name, MimeType: "text/csv", Content: buf.String(), Count: len(entries)}, nil
}

// cell defuses spreadsheet formulas in text that came from a model or a window.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
