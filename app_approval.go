package main

import (
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/permission"
)

// Approval facade (APPR-1..3): the dialogs, the decisions, the sessions' permission
// modes, the rules and the audit log. Every change is announced on the `approvals` topic
// (approval:requested / approval:decided / approval:resumed / permission:rules /
// permission:mode); snapshots carry that topic's seq.

// ListPendingApprovals returns the requests waiting for a decision in any session: the
// dialogs every window shows.
func (a *App) ListPendingApprovals() (approval.Pending, error) {
	return a.s.Approval.ListPending(a.ctx)
}

// ListSessionApprovals returns a session's requests, including interrupted ones to
// offer "resume" on.
func (a *App) ListSessionApprovals(sessionID string) (approval.Pending, error) {
	return a.s.Approval.ListSession(a.ctx, sessionID)
}

// DecideApproval answers a request: allow_once, allow_session, allow_always or deny
// (reason goes to the model). The first answer from any window wins; later ones get
// approval_already_decided. window names the deciding window in the audit log.
func (a *App) DecideApproval(requestID, decision, reason, window string) (approval.Request, error) {
	return a.s.Approval.Decide(a.ctx, requestID, decision, reason, window)
}

// ResumeApproval asks again about a request interrupted by a quit or crash; nothing runs
// until it is allowed.
func (a *App) ResumeApproval(requestID, window string) (approval.Request, error) {
	return a.s.ResumeApproval(a.ctx, requestID, window)
}

// GetSessionPermissionMode returns a session's permission mode (its own or the default).
func (a *App) GetSessionPermissionMode(sessionID string) (approval.SessionMode, error) {
	return a.s.Approval.SessionMode(a.ctx, sessionID)
}

// SetSessionPermissionMode sets a session's mode (default, acceptEdits, plan,
// bypassPermissions); "" follows the global default again.
func (a *App) SetSessionPermissionMode(sessionID, mode string) (approval.SessionMode, error) {
	return a.s.Approval.SetSessionMode(a.ctx, sessionID, mode)
}

// ListPermissionRules returns every allow / deny / ask rule.
func (a *App) ListPermissionRules() (approval.RuleList, error) { return a.s.Approval.ListRules(a.ctx) }

// SavePermissionRule adds (empty id) or replaces a rule.
func (a *App) SavePermissionRule(rule permission.Rule) (permission.Rule, error) {
	return a.s.Approval.SaveRule(a.ctx, rule)
}

// DeletePermissionRule removes a rule.
func (a *App) DeletePermissionRule(id string) error { return a.s.Approval.DeleteRule(a.ctx, id) }

// TestPermissionRule shows the verdict a sample call would get, with a draft rule or
// the stored ones; nothing runs and nothing is stored.
func (a *App) TestPermissionRule(sample approval.Sample) (approval.TestResult, error) {
	return a.s.Approval.TestRule(a.ctx, sample)
}

// ListApprovalAudit returns a page of the audit log, newest first.
func (a *App) ListApprovalAudit(query approval.AuditQuery, limit int) (approval.AuditPage, error) {
	return a.s.Approval.ListAudit(a.ctx, query, limit)
}

// ExportApprovalAudit returns the matching audit entries as a "json" or "csv" file.
func (a *App) ExportApprovalAudit(format string, query approval.AuditQuery) (approval.Export, error) {
	return a.s.Approval.ExportAudit(a.ctx, format, query)
}
