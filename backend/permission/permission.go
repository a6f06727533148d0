// Package permission is the pure half of APPR-2: permission modes, rules and the decision
// a call gets from them (allow, deny or ask). It reads no database and asks nobody; the
// approval service (backend/approval) feeds it the session's mode, the stored rules and
// the call, and acts on the verdict. Matching covers tool names and namespaces (globs),
// path arguments (doublestar globs over every place the tool may take the path, after
// `~`, `..` and symlinks, compared in NFC and case-folded where the file system ignores
// case; a path that cannot be placed meets every deny and ask rule and no allow rule) and
// shell commands by prefix, parsed with mvdan.cc/sh so that an allowed prefix cannot
// smuggle in more.
package permission

// Mode is a session's permission mode.
type Mode string

// The modes of APPR-2 and APPR-4.
const (
	// ModeDefault asks for anything not read-only and not covered by a rule.
	ModeDefault Mode = "default"
	// ModeAcceptEdits lets file edits inside the session's workspace pass.
	ModeAcceptEdits Mode = "acceptEdits"
	// ModeAuto is the default mode in which a call that would ask about a harmless-looking
	// change goes to a classifier model first (Verdict.Classify); destructive calls,
	// calls reaching outside the workspace and every rule still decide as in default.
	ModeAuto Mode = "auto"
	// ModePlan runs only read-only tools; the rest are refused with a message to the model.
	ModePlan Mode = "plan"
	// ModeBypass asks about nothing; deny rules still hold.
	ModeBypass Mode = "bypassPermissions"
)

// Modes lists the modes in the order the settings page shows them.
func Modes() []Mode { return []Mode{ModeDefault, ModeAcceptEdits, ModeAuto, ModePlan, ModeBypass} }

// ParseMode accepts a mode's exact name.
func ParseMode(s string) (Mode, bool) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// Behavior is what a rule or a verdict says about a call. The values equal
// tools.Behavior's so the approval service converts by type conversion.
type Behavior string

// The three answers.
const (
	Allow Behavior = "allow"
	Deny  Behavior = "deny"
	Ask   Behavior = "ask"
)

// Approval is a tool's standing approval choice: the user's per-tool setting (Settings →
// MCP, `cairn mcp approval`) or a built-in tool that always asks. It is tri-state so that
// "allow" can say more than "not ask": the defaults step lets an allowed tool run unasked
// even when it is not read-only, while Default leaves the decision to the defaults.
type Approval string

// The three approval choices.
const (
	// ApprovalDefault: read-only tools pass, the rest asks (the defaults step).
	ApprovalDefault Approval = ""
	// ApprovalAsk: always ask, read-only or not.
	ApprovalAsk Approval = "ask"
	// ApprovalAllow: never ask (deny and ask rules, plan mode and hooks still hold).
	ApprovalAllow Approval = "allow"
)

// Approvals lists the choices.
func Approvals() []Approval { return []Approval{ApprovalDefault, ApprovalAsk, ApprovalAllow} }

// ValidApproval reports whether a is one of the three choices.
func ValidApproval(a Approval) bool {
	return a == ApprovalDefault || a == ApprovalAsk || a == ApprovalAllow
}

// ValidBehavior reports whether b is one of Allow, Deny, Ask.
func ValidBehavior(b Behavior) bool { return b == Allow || b == Deny || b == Ask }

// Decision sources (APPR-2); the values equal the tools.Source* constants.
const (
	SourceUserTemporary = "user_temporary" // a rule the user made for one session
	SourceUserPermanent = "user_permanent" // an "always allow" the user stored
	SourceUserReject    = "user_reject"    // the user denied or stopped
	SourceHook          = "hook"           // a pre-call hook decided
	SourceConfig        = "config"         // settings: rules, the mode, the defaults
	SourceClassifier    = "classifier"     // auto mode: the classifier model allowed or asked
)

// ValidRuleSource reports whether a stored rule may carry the source: rules come from a
// user's decision (temporary or permanent) or from the settings page (config).
func ValidRuleSource(s string) bool {
	return s == SourceUserTemporary || s == SourceUserPermanent || s == SourceConfig
}

// Reason codes of auto mode: the verdicts the classifier step gives (set by the approval
// service) and the ask for a call outside the workspace.
const (
	ReasonOutsideWorkspace      = "outside_workspace"
	ReasonClassifierAllows      = "classifier_allows"
	ReasonClassifierAsks        = "classifier_asks"
	ReasonClassifierLate        = "classifier_late"
	ReasonClassifierMalformed   = "classifier_malformed"
	ReasonClassifierUnavailable = "classifier_unavailable"
)
