package chat

import (
	"context"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/tools"
)

// ChildRun is an answer a sub-agent gives in its own session on behalf of another
// session's tool call. Its tool calls act in the parent's context (ActAs: the workspace,
// the knowledge bases, the permission mode and rules of the parent), keep only the tools
// Allow accepts, and carry the sub-agent's name, so an approval request says who asks.
type ChildRun struct {
	SessionID string // the child's session (CreateChildSession)
	Prompt    string // the task, sent as the child's user message
	ActAs     string // the parent session
	Agent     string // the sub-agent's name
	Allow     func(name string) bool
	// MaxRounds bounds the tool rounds (0: chat.maxToolRounds); MaxTokens the tokens of
	// every request together (0: none). A run over either ends with its error.
	MaxRounds int
	MaxTokens int

	run *run // the answer, once start made it
}

// ChildCall is one tool call a sub-agent made, as its account lists it.
type ChildCall struct {
	Name      string       `json:"name"`
	Arguments string       `json:"arguments"`
	Status    tools.Status `json:"status"`
}

// ChildResult is how a sub-agent's answer ended: its last text, its calls, its usage.
type ChildResult struct {
	MessageID string        `json:"messageId"`
	Status    string        `json:"status"` // a Message status
	Text      string        `json:"text"`
	Error     *apperr.Error `json:"error,omitempty"`
	Usage     *llm.Usage    `json:"usage,omitempty"`
	// Cost is what the child's answer cost at its model's price; nil when it has none.
	Cost  *llm.Cost   `json:"cost,omitempty"`
	Calls []ChildCall `json:"calls"`
}

// CreateChildSession makes the session of a sub-agent started by call callID of session
// parentID. It is stored like any conversation but left out of the list. An empty
// provider or model takes the parent's; a provider may be named by id or name.
func (s *Service) CreateChildSession(ctx context.Context, parentID, callID string, in SessionInput) (Session, error) {
	parent, err := loadSession(ctx, s.q, parentID)
	if err != nil {
		return Session{}, err
	}
	if in.ProviderID == "" {
		in.ProviderID = parent.ProviderID
		if in.Model == "" {
			in.Model = parent.Model
		}
	}
	if in.ProviderID != "" {
		target, err := s.cfg.Models.Resolve(ctx, in.ProviderID, in.Model)
		if err != nil {
			return Session{}, err
		}
		in.ProviderID, in.Model = target.Provider.ID, target.Model.ID
	}
	in.Kind = parent.Kind
	in.ReuseEmpty = false
	sess, err := s.insertSession(ctx, in)
	if err != nil {
		return Session{}, err
	}
	if _, err := s.q.ExecContext(ctx, "UPDATE sessions SET parent_session_id = ?, parent_call_id = ? WHERE id = ?", parentID, callID, sess.ID); err != nil {
		return Session{}, apperr.Wrap(err, apperr.Internal, "link the sub-agent's session")
	}
	sess.ParentID, sess.ParentCallID = parentID, callID
	return sess, nil
}

// RunChild sends the sub-agent's task and runs its answer to the end under ctx (the
// parent call's: stopping the parent stops the child and its tools), then says how it
// ended. A stop or a deadline of ctx ends it as stopped; the caller reads ctx's cause.
func (s *Service) RunChild(ctx context.Context, c ChildRun) (ChildResult, error) {
	if strings.TrimSpace(c.Prompt) == "" {
		return ChildResult{}, badArg("the sub-agent's task is empty")
	}
	c.MaxRounds = max(c.MaxRounds, 0)
	if _, err := s.start(ctx, c.SessionID, userInput{text: c.Prompt, child: &c}, nil, nil); err != nil {
		return ChildResult{}, err
	}
	r := c.run
	<-r.done
	return r.childResult(), nil
}

// runContext is the context of a new answer: the service's for a session's own answer
// (it outlives the call that started it), the parent call's for a sub-agent's, ended
// too when the service closes.
func (s *Service) runContext(ctx context.Context, child *ChildRun) (context.Context, context.CancelFunc) {
	if child == nil {
		return context.WithCancel(s.base)
	}
	// Whatever ends ctx (a stop, a deadline) ends the answer as a stop: the caller reads
	// ctx's cause to say why.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopParent := context.AfterFunc(ctx, cancel)
	stopBase := context.AfterFunc(s.base, cancel)
	return runCtx, func() { stopParent(); stopBase(); cancel() }
}

// overBudget is the error that ends an answer before its next tool round: the round
// limit, or a sub-agent's token budget; nil lets it go on.
func (r *run) overBudget(round, maxRounds int) *apperr.Error {
	if round >= maxRounds {
		return apperr.New(apperr.MaxRoundsReached, "the limit of %d tool rounds was reached", maxRounds).WithParam("rounds", maxRounds)
	}
	if r.child == nil || r.child.MaxTokens <= 0 {
		return nil
	}
	r.mu.Lock()
	used := 0
	if r.usage != nil {
		used = r.usage.TotalTokens
	}
	r.mu.Unlock()
	if used >= r.child.MaxTokens {
		return apperr.New(apperr.AgentTokenBudget, "the sub-agent used %d tokens of its budget of %d", used, r.child.MaxTokens).
			WithParam("limit", r.child.MaxTokens).WithParam("used", used)
	}
	return nil
}

// childResult reads how the sub-agent's answer ended, once it has.
func (r *run) childResult() ChildResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := ChildResult{MessageID: r.msgID, Status: r.meta.Status, Error: r.meta.Error, Usage: r.usage, Cost: r.meta.Cost, Calls: []ChildCall{}}
	last := -1
	for _, lp := range r.parts {
		if lp.Type == PartText && strings.TrimSpace(string(lp.buf)) != "" {
			last = lp.Round
		}
	}
	var text []string
	for _, lp := range r.parts {
		switch {
		case lp.Type == PartText && lp.Round == last:
			text = append(text, string(lp.buf))
		case lp.Type == PartToolCall:
			st := tools.StatusStopped
			if o, ok := r.results[lp.Tool.CallID]; ok {
				st = o.Status
			}
			res.Calls = append(res.Calls, ChildCall{Name: lp.Tool.Name, Arguments: string(lp.buf), Status: st})
		}
	}
	res.Text = strings.TrimSpace(strings.Join(text, ""))
	return res
}

// setChildWaiting records how many approvals a child run waits for; the parent shows
// awaiting-approval while any child does.
func (r *run) setChildWaiting(child *run, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	before := r.stateLocked()
	if r.childWaits == nil {
		r.childWaits = map[*run]int{}
	}
	if n > 0 {
		r.childWaits[child] = n
	} else {
		delete(r.childWaits, child)
	}
	if r.stateLocked() != before {
		r.publishState()
	}
}

// reportWaits tells the parent run how many approvals this child run waits for.
func (r *run) reportWaits() {
	if r.parent == nil {
		return
	}
	r.mu.Lock()
	n := len(r.approvals)
	if r.closed {
		n = 0
	}
	r.mu.Unlock()
	r.parent.setChildWaiting(r, n)
}

// ChildSessions are the sub-agents' sessions of a session, oldest first.
func (s *Service) ChildSessions(ctx context.Context, parentID string) ([]Session, error) {
	rows, err := s.q.QueryContext(ctx, "SELECT "+sessionSelect+" FROM sessions WHERE parent_session_id = ? ORDER BY created_at, id", parentID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list sub-agent sessions")
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "list sub-agent sessions")
		}
		out = append(out, s.withState(sess))
	}
	return out, rows.Err()
}
