package agents

import (
	"context"
	"encoding/json"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
)

// Run states: a child runs, then ends done, with an error, stopped (the parent's Stop or
// the user's), or on a budget (rounds, tokens, wall time).
const (
	StateRunning = "running"
	StateDone    = "done"
	StateError   = "error"
	StateStopped = "stopped"
	StateBudget  = "budget"
)

// Run is one sub-agent as its parent's tool card and `cairn chat` show it.
type Run struct {
	SessionID       string  `json:"sessionId"` // the child's own conversation
	ParentSessionID string  `json:"parentSessionId"`
	ParentCallID    string  `json:"parentCallId"`
	Name            string  `json:"name"`
	Type            string  `json:"type"`
	Description     string  `json:"description"`
	State           string  `json:"state"`
	Summary         Summary `json:"summary"`
	CreatedAt       int64   `json:"createdAt"`
	EndedAt         int64   `json:"endedAt,omitempty"`
}

// Summary is the account a child gives: the tools it called, the sources it read, its
// tokens, what they cost at its model's price (absent when the model has none) and, when
// it did not finish, why.
type Summary struct {
	Calls   []CallCount   `json:"calls"`
	Sources []string      `json:"sources"`
	Usage   *llm.Usage    `json:"usage,omitempty"`
	Cost    *llm.Cost     `json:"cost,omitempty"`
	Error   *apperr.Error `json:"error,omitempty"`
}

// CallCount is how many times a child called one tool.
type CallCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

const runCols = "session_id, parent_session_id, parent_call_id, name, type, description, state, summary, created_at, ended_at"

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var summary string
	err := sc.Scan(&r.SessionID, &r.ParentSessionID, &r.ParentCallID, &r.Name, &r.Type, &r.Description, &r.State, &summary, &r.CreatedAt, &r.EndedAt)
	if err == nil {
		_ = json.Unmarshal([]byte(summary), &r.Summary)
	}
	if r.Summary.Calls == nil {
		r.Summary.Calls = []CallCount{}
	}
	if r.Summary.Sources == nil {
		r.Summary.Sources = []string{}
	}
	return r, err
}

func (s *Service) insertRun(ctx context.Context, r Run) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO agent_runs("+runCols+") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
		r.SessionID, r.ParentSessionID, r.ParentCallID, r.Name, r.Type, r.Description, r.State, "{}", r.CreatedAt)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "record the sub-agent")
	}
	return nil
}

// finishRun stores how a child ended; it is written with a context of its own, since the
// parent's may have ended with the child.
func (s *Service) finishRun(r Run) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, _ := json.Marshal(r.Summary)
	if _, err := s.db.ExecContext(ctx, "UPDATE agent_runs SET state = ?, summary = ?, ended_at = ? WHERE session_id = ?",
		r.State, string(b), r.EndedAt, r.SessionID); err != nil && s.log != nil {
		s.log.Warn("agents: store the end of a sub-agent", "session", r.SessionID, "err", err)
	}
}

// GetRun is the sub-agent call callID of session sessionID started. A run still marked
// running that no call of this process runs was cut off by an exit: it is shown stopped.
func (s *Service) GetRun(ctx context.Context, sessionID, callID string) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, "SELECT "+runCols+" FROM agent_runs WHERE parent_session_id = ? AND parent_call_id = ? ORDER BY created_at DESC LIMIT 1", sessionID, callID))
	if isNoRows(err) {
		return Run{}, apperr.New(apperr.AgentRunNotFound, "no sub-agent of call %s in session %s", callID, sessionID)
	}
	if err != nil {
		return Run{}, apperr.Wrap(err, apperr.Internal, "read the sub-agent")
	}
	return s.live(r), nil
}

// ListRuns are the sub-agents a session started, oldest first.
func (s *Service) ListRuns(ctx context.Context, sessionID string) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+runCols+" FROM agent_runs WHERE parent_session_id = ? ORDER BY created_at, session_id", sessionID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "list sub-agents")
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "list sub-agents")
		}
		out = append(out, s.live(r))
	}
	return out, rows.Err()
}

// live shows a run left "running" by a process that is gone as stopped.
func (s *Service) live(r Run) Run {
	if r.State != StateRunning {
		return r
	}
	s.mu.Lock()
	_, running := s.running[r.SessionID]
	s.mu.Unlock()
	if !running {
		r.State = StateStopped
	}
	return r
}
