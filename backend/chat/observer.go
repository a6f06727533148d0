package chat

import (
	"encoding/json"
	"time"

	"github.com/cairn-app/cairn/backend/tools"
)

// observer turns the tool system's reports into parts while a batch runs. Calls may come
// from several goroutines at once (parallel tools).
type observer struct{ r *run }

var (
	_ tools.Observer   = (*observer)(nil)
	_ ApprovalObserver = (*observer)(nil)
)

// CallStarted marks the call's card as running.
func (o *observer) CallStarted(call tools.Call) {
	r := o.r
	r.mu.Lock()
	defer r.mu.Unlock()
	lp := r.calls[call.ID]
	if r.closed || lp == nil {
		return
	}
	lp.Tool.StartedAt = time.Now().UnixMilli()
	r.updated(lp, false)
}

// CallProgress shows the latest progress on the call's card, at most 20 times a second.
func (o *observer) CallProgress(p tools.Progress) {
	r := o.r
	r.mu.Lock()
	defer r.mu.Unlock()
	lp := r.calls[p.CallID]
	if r.closed || lp == nil {
		return
	}
	lp.Tool.Progress = &p
	r.updated(lp, true)
}

// CallFinished records the call's end part as soon as it is known.
func (o *observer) CallFinished(out tools.Outcome) {
	r := o.r
	out = r.svc.redactOutcome(out)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.recordLocked(out)
}

// ApprovalRequested adds an approval-requested part and moves the session to
// awaiting-approval.
func (o *observer) ApprovalRequested(callID string, data json.RawMessage) {
	r := o.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	name := ""
	if lp := r.calls[callID]; lp != nil {
		name = lp.Tool.Name
	}
	r.appendPart(Part{Type: PartApprovalRequested, Tool: &ToolInfo{CallID: callID, Name: name}, Data: data}, "", "")
	before := r.stateLocked()
	r.approvals[callID] = true
	if r.stateLocked() != before {
		r.publishState()
	}
	r.mu.Unlock()
	r.reportWaits()
	r.mu.Lock()
}

// ApprovalDecided adds an approval-decided part; the session leaves awaiting-approval
// when no other call waits.
func (o *observer) ApprovalDecided(callID string, data json.RawMessage) {
	r := o.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	name := ""
	if lp := r.calls[callID]; lp != nil {
		name = lp.Tool.Name
	}
	r.appendPart(Part{Type: PartApprovalDecided, Tool: &ToolInfo{CallID: callID, Name: name}, Data: data}, "", "")
	before := r.stateLocked()
	delete(r.approvals, callID)
	if r.stateLocked() != before {
		r.publishState()
	}
	r.mu.Unlock()
	r.reportWaits()
	r.mu.Lock()
}
