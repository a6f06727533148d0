package tools

import (
	"context"
	"encoding/json"
)

// Behavior is what a permission decision says about a call.
type Behavior string

// The three answers of APPR-2. The pipeline runs a call only on BehaviorAllow; a
// Permission that answers BehaviorAsk is expected to ask and wait itself (approval
// issue), so an "ask" reaching the pipeline means nobody could answer and counts as deny.
const (
	BehaviorAllow Behavior = "allow"
	BehaviorDeny  Behavior = "deny"
	BehaviorAsk   Behavior = "ask"
)

// Decision sources (APPR-2), carried for the audit trail.
const (
	SourceUserTemporary = "user_temporary"
	SourceUserPermanent = "user_permanent"
	SourceUserReject    = "user_reject"
	SourceHook          = "hook"
	SourceConfig        = "config"
)

// Decision is a permission verdict on one call.
type Decision struct {
	Behavior Behavior `json:"behavior"`
	Source   string   `json:"source,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	// Args, when set, replaces the input (e.g. the user edited it in the dialog); it is
	// validated against the schema again.
	Args json.RawMessage `json:"args,omitempty"`
}

// PermissionRequest is everything a permission check may look at.
type PermissionRequest struct {
	Call  Call
	Entry *Entry          // read-only
	Args  json.RawMessage // input after validation and pre-hooks
	// Hook is the decision a pre-hook already made (allow or ask), if any; a hook's
	// deny never reaches the Permission.
	Hook *Decision
	// Observer is the batch's observer (nil when nobody listens): the approval service
	// shows its request and decision parts through it when it can (chat's observer).
	Observer Observer
}

// Permission decides whether a call may run (step 5 of the pipeline). The approval
// service implements it: rules, modes and asking the user all happen inside Check, which
// may block until the user decides or ctx ends.
type Permission interface {
	Check(ctx context.Context, req PermissionRequest) (Decision, error)
}

// PermissionFunc adapts a function to Permission.
type PermissionFunc func(ctx context.Context, req PermissionRequest) (Decision, error)

// Check calls f.
func (f PermissionFunc) Check(ctx context.Context, req PermissionRequest) (Decision, error) {
	return f(ctx, req)
}

// AllowAll is the pass-through Permission used until the approval service plugs in: it
// follows a hook's decision when there is one and otherwise allows.
type AllowAll struct{}

// Check allows every call.
func (AllowAll) Check(_ context.Context, req PermissionRequest) (Decision, error) {
	if req.Hook != nil && req.Hook.Behavior == BehaviorAllow {
		return *req.Hook, nil
	}
	return Decision{Behavior: BehaviorAllow, Source: SourceConfig}, nil
}

// PreHookResult is what a pre-call hook may do: rewrite the input, decide permission,
// or stop the call.
type PreHookResult struct {
	Args     json.RawMessage // non-nil: replaces the input (validated against the schema again)
	Decision *Decision       // non-nil: a permission decision (deny ends the call)
	Stop     bool            // end the call before it runs
	Reason   string          // why, shown to the model and the user
}

// PreHook runs after validation and before permission, in registration order. An error
// stops the call (hooks fail closed).
type PreHook func(ctx context.Context, call Call, entry *Entry, args json.RawMessage) (PreHookResult, error)

// PostHook runs after the result was mapped, in registration order, for calls whose tool
// ran and was not stopped; it may rewrite the outcome (e.g. an MCP result). CallID and
// Name cannot be changed. An error turns the outcome into a tool error.
type PostHook func(ctx context.Context, call Call, entry *Entry, out Outcome) (Outcome, error)
