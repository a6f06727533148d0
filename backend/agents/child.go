package agents

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/tools"
)

// child is a sub-agent ready to run: its session exists and its run is recorded.
type child struct {
	run    Run
	typ    Type
	prompt string
	actAs  string
	allow  func(string) bool
}

// Result is how a child ended, for its parent: the record and the text the parent model
// reads (the child's answer and its account).
type Result struct {
	Run     Run
	Text    string
	Content string
}

// errWallTime is the cause of a child's context when its wall-time budget ran out.
var errWallTime = errors.New("the sub-agent's time budget ran out")

// prepare resolves the type, makes the child's session (linked to the call) and records
// the run. The child's tools are its type's within the parent's: the parent's toolsets
// but this one (a sub-agent starts none of its own), and only what the type lists and
// the parent's own filter keeps.
func (s *Service) prepare(ctx context.Context, call tools.Call, in runInput) (*child, error) {
	if call.Scope.Agent != nil {
		return nil, apperr.New(apperr.AgentNested, "a sub-agent cannot start sub-agents")
	}
	t, err := s.typeNamed(ctx, strings.TrimSpace(in.Type))
	if err != nil {
		return nil, err
	}
	if t.TaskOnly && call.Scope.SessionKind != chat.KindTask {
		return nil, apperr.New(apperr.AgentTypeNeedsTask, "the %s sub-agent works only in a task session", t.Name)
	}
	toolsets := slices.DeleteFunc(slices.Clone(call.Scope.Toolsets), func(ts string) bool { return ts == Name })
	if toolsets == nil {
		toolsets = []string{}
	}
	name := cmp.Or(oneLine(in.Name), t.Name)
	desc := oneLine(in.Description)
	provider, model := cmp.Or(strings.TrimSpace(in.Provider), t.ProviderID), cmp.Or(strings.TrimSpace(in.Model), t.Model)
	sess, err := s.chat.CreateChildSession(ctx, call.SessionID, call.ID, chat.SessionInput{
		Title: strings.TrimSpace(name + ": " + desc), ProviderID: provider, Model: model,
		SystemPrompt: t.system(), Toolsets: toolsets})
	if err != nil {
		return nil, err
	}
	r := Run{SessionID: sess.ID, ParentSessionID: call.SessionID, ParentCallID: call.ID, Name: name, Type: t.Name,
		Description: desc, State: StateRunning, CreatedAt: time.Now().UnixMilli(),
		Summary: Summary{Calls: []CallCount{}, Sources: []string{}}}
	if err := s.insertRun(ctx, r); err != nil {
		return nil, err
	}
	parent := call.Scope.Allow
	allow := func(n string) bool { return n != ToolName && t.allows(n) && (parent == nil || parent(n)) }
	return &child{run: r, typ: t, prompt: in.Prompt, actAs: call.SessionID, allow: allow}, nil
}

// runChild runs a prepared child to its end under ctx, within its budgets and a slot of
// agents.maxParallel, and says how it went. A background task wraps this same function.
func (s *Service) runChild(ctx context.Context, c *child, progress func(tools.Progress)) (Result, error) {
	if err := s.acquire(ctx); err != nil {
		c.run.State, c.run.EndedAt = StateStopped, time.Now().UnixMilli()
		s.finishRun(c.run)
		return Result{}, err
	}
	defer s.release()
	s.mu.Lock()
	s.running[c.run.SessionID] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, c.run.SessionID)
		s.mu.Unlock()
	}()

	wall := s.st.Duration(ctx, SettingMaxDuration)
	cctx, cancel := context.WithTimeoutCause(ctx, wall, errWallTime)
	defer cancel()
	stopFollow := s.follow(c.run, progress)
	res, err := s.chat.RunChild(cctx, chat.ChildRun{SessionID: c.run.SessionID, Prompt: c.prompt, ActAs: c.actAs,
		Agent: c.run.Name, Allow: c.allow,
		MaxRounds: s.st.Int(ctx, SettingMaxRounds), MaxTokens: s.st.Int(ctx, SettingMaxTokens)})
	stopFollow()
	c.run.EndedAt = time.Now().UnixMilli()
	if err != nil {
		c.run.State, c.run.Summary.Error = StateError, apperr.From(err)
		s.finishRun(c.run)
		return Result{}, err
	}
	c.run.State, c.run.Summary = s.outcome(cctx, ctx, res, wall)
	s.finishRun(c.run)
	return Result{Run: c.run, Text: res.Text, Content: account(c.run, res.Text)}, nil
}

// outcome is the state and account of a child that ended: done, stopped (by the parent or
// the user), over a budget (rounds, tokens, its time), or failed.
func (s *Service) outcome(cctx, parent context.Context, res chat.ChildResult, wall time.Duration) (string, Summary) {
	sum := Summary{Calls: countCalls(res.Calls), Sources: s.sources(res.Calls), Usage: res.Usage, Cost: res.Cost, Error: res.Error}
	switch {
	case res.Status == chat.MessageComplete:
		return StateDone, sum
	case res.Status == chat.MessageStopped && parent.Err() == nil && errors.Is(context.Cause(cctx), errWallTime):
		sum.Error = apperr.New(apperr.AgentTimeBudget, "the sub-agent ran for its limit of %s", wall).WithParam("limit", wall.String())
		return StateBudget, sum
	case res.Status == chat.MessageStopped:
		return StateStopped, sum
	case res.Error != nil && (res.Error.Code == apperr.MaxRoundsReached || res.Error.Code == apperr.AgentTokenBudget):
		return StateBudget, sum
	}
	return StateError, sum
}

// countCalls counts a child's calls by tool, in the order it first called each.
func countCalls(calls []chat.ChildCall) []CallCount {
	out := []CallCount{}
	for _, c := range calls {
		if i := slices.IndexFunc(out, func(cc CallCount) bool { return cc.Name == c.Name }); i >= 0 {
			out[i].Count++
		} else {
			out = append(out, CallCount{Name: c.Name, Count: 1})
		}
	}
	return out
}

// sources are the URLs and paths the child's successful calls of read-only tools reached,
// as each tool says what it touches; at most 20.
func (s *Service) sources(calls []chat.ChildCall) []string {
	out := []string{}
	if s.reg == nil {
		return out
	}
	for _, c := range calls {
		e, ok := s.reg.Lookup(c.Name)
		if !ok || !e.ReadOnly || e.Touches == nil || c.Status != tools.StatusResult {
			continue
		}
		t, err := e.Touches(json.RawMessage(c.Arguments))
		if err != nil {
			continue
		}
		for _, src := range append(t.URLs, t.AllPaths()...) {
			if src != "" && !slices.Contains(out, src) && len(out) < 20 {
				out = append(out, src)
			}
		}
	}
	return out
}

// account is what the parent model reads: the child's answer, then what it did.
func account(r Run, text string) string {
	var b strings.Builder
	switch {
	case strings.TrimSpace(text) != "":
		b.WriteString(text)
	default:
		b.WriteString("(The sub-agent gave no answer.)")
	}
	fmt.Fprintf(&b, "\n\n---\nSub-agent %q (%s) %s.", r.Name, r.Type, stateText(r))
	if len(r.Summary.Calls) > 0 {
		parts := make([]string, 0, len(r.Summary.Calls))
		for _, c := range r.Summary.Calls {
			parts = append(parts, fmt.Sprintf("%s ×%d", c.Name, c.Count))
		}
		b.WriteString("\nTools called: " + strings.Join(parts, ", ") + ".")
	} else {
		b.WriteString("\nTools called: none.")
	}
	if len(r.Summary.Sources) > 0 {
		b.WriteString("\nSources read: " + strings.Join(r.Summary.Sources, ", ") + ".")
	}
	if u := r.Summary.Usage; u != nil {
		fmt.Fprintf(&b, "\nTokens: %d.", u.TotalTokens)
	}
	if c := r.Summary.Cost; c != nil {
		fmt.Fprintf(&b, "\nCost: %.4g %s.", c.Amount, c.Currency)
	}
	return b.String()
}

// stateText says how the child ended, in the words the parent model reads.
func stateText(r Run) string {
	switch r.State {
	case StateDone:
		return "finished"
	case StateStopped:
		return "was stopped before it finished; its answer may be partial"
	case StateBudget:
		why := "it reached a budget"
		if e := r.Summary.Error; e != nil {
			why = e.Message
		}
		return "was stopped because " + why + "; its answer is partial. Give it a smaller task, or do the rest yourself"
	}
	why := "an error"
	if e := r.Summary.Error; e != nil {
		why = e.Message
	}
	return "failed: " + why
}

// follow reports the child's steps as the parent call's progress (its card and `cairn
// chat` show them): each call it makes and how it ended. The returned func stops it.
func (s *Service) follow(r Run, progress func(tools.Progress)) func() {
	if s.bus == nil || progress == nil {
		return func() {}
	}
	sub := s.bus.Subscribe(512)
	done := make(chan struct{})
	topic := events.SessionTopic(r.SessionID)
	go func() {
		defer close(done)
		steps := 0
		seen := map[string]bool{}
		var last time.Time
		report := func(msg string) {
			// Spaced so that the card's progress, announced at most every 50 ms, shows
			// (and `cairn chat` prints) every step rather than the latest.
			time.Sleep(time.Until(last.Add(progressSpacing)))
			last = time.Now()
			steps++
			progress(tools.Progress{Kind: ProgressKind, Progress: float64(steps), Message: r.Name + ": " + msg})
		}
		report("started")
		for ev := range sub.C {
			if ev.Topic != topic || (ev.Type != chat.EventPartAppended && ev.Type != chat.EventPartUpdated) {
				continue
			}
			var p chat.Part
			if json.Unmarshal(ev.Data, &p) != nil || p.Tool == nil || p.State != chat.PartDone || seen[p.ID] {
				continue
			}
			switch p.Type {
			case chat.PartToolCall:
				seen[p.ID] = true
				report("→ " + p.Tool.Name + " " + clip(oneLine(p.Tool.Arguments), 120))
			case chat.PartToolResult, chat.PartToolError, chat.PartToolStopped:
				seen[p.ID] = true
				report("← " + p.Tool.Name + " " + strings.TrimPrefix(string(p.Type), "tool-"))
			}
		}
	}()
	return func() { sub.Close(); <-done }
}

// progressSpacing is the least time between two of a child's progress reports.
const progressSpacing = 60 * time.Millisecond

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
