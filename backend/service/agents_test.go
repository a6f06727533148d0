package service

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/agents"
	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/sandbox"
	"github.com/cairn-app/cairn/backend/tasks"
	"github.com/cairn-app/cairn/backend/websearch"
)

// agentModel answers the conversation's own model and its sub-agents differently, told
// apart by their system prompts.
func agentModel(parent, child func(llmtest.Request) llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		if isSubAgent(r) {
			return child(r)
		}
		return parent(r)
	}
}

func isSubAgent(r llmtest.Request) bool {
	for _, m := range r.Body.Messages {
		if m.Role == "system" && strings.Contains(m.Content, "You are a sub-agent") {
			return true
		}
	}
	return false
}

// toolTurns counts the tool results a request carries: which step of its script it is.
func toolTurns(r llmtest.Request) int {
	n := 0
	for _, m := range r.Body.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}

// delegating is a parent that starts one sub-agent with args, then repeats what it read.
func delegating(args map[string]any) func(llmtest.Request) llmtest.Reply {
	b, _ := json.Marshal(args)
	return func(r llmtest.Request) llmtest.Reply {
		if toolTurns(r) == 0 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "a1", Name: agents.ToolName, Arguments: string(b)}}}
		}
		return llmtest.Reply{Text: "parent read: " + r.Body.LastMessage().Content}
	}
}

// agentEnd is the end part of the parent's agent_run call and its run.
func agentEnd(t *testing.T, snap chat.Snapshot) (chat.Part, agents.Run) {
	t.Helper()
	for _, m := range snap.Messages {
		for _, p := range m.Parts {
			if p.Tool != nil && p.Tool.Name == agents.ToolName && p.Type != chat.PartToolCall {
				var run agents.Run
				_ = json.Unmarshal(p.Tool.Display, &run)
				return p, run
			}
		}
	}
	t.Fatal("no end of agent_run")
	return chat.Part{}, agents.Run{}
}

// agentChat opens the services with a fake model and a chat session with toolsets.
func agentChat(t *testing.T, toolsets ...string) (*Services, *llmtest.Server, chat.Session) {
	t.Helper()
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := llmtest.Start(t)
	ctx := context.Background()
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m", SupportsTools: true, ContextWindow: 64000}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "m", Toolsets: toolsets})
	if err != nil {
		t.Fatal(err)
	}
	return s, srv, sess
}

// TestResearcherSubAgent: the parent starts a researcher, which is offered exactly its
// type's tools within the parent's (web search and fetch: the parent has no knowledge
// bases, and no sub-agent starts another), searches, and answers; the parent reads the
// answer and the account (tools called, tokens, cost). The child's conversation is stored,
// linked to the parent's call, and left out of the list.
func TestResearcherSubAgent(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"query":"cairn","results":[{"url":"https://example.org/cairn","title":"Cairn","content":"A pile of stones","engine":"bing"}]}`)
	}))
	defer searx.Close()
	s, srv, sess := agentChat(t, "web", agents.Name)
	ctx := context.Background()
	for k, v := range map[string]any{websearch.SettingProvider: websearch.SearXNG, websearch.EndpointSetting(websearch.SearXNG): searx.URL} {
		if _, err := s.Settings.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Providers.SetPrice(ctx, sess.ProviderID, "m", llm.Price{Input: 1, Output: 2, Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var childTools []string
	srv.Handle(agentModel(delegating(map[string]any{"description": "find cairns", "prompt": "What is a cairn?", "type": "researcher", "name": "scout"}),
		func(r llmtest.Request) llmtest.Reply {
			if toolTurns(r) == 0 {
				mu.Lock()
				childTools = r.Body.ToolNames()
				mu.Unlock()
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"query":"cairn"}`}},
					Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 10}}
			}
			return llmtest.Reply{Text: "A cairn is a pile of stones (https://example.org/cairn).", Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 20}}
		}))
	if _, err := s.Chat.SendMessage(ctx, sess.ID, "research cairns"); err != nil {
		t.Fatal(err)
	}
	snap := waitIdle(t, s, sess.ID)
	end, run := agentEnd(t, snap)
	if end.Type != chat.PartToolResult || run.State != agents.StateDone || run.Name != "scout" || run.Type != "researcher" {
		t.Fatalf("end %s %+v", end.Type, run)
	}
	// the child's 300 prompt and 30 completion tokens at 1 and 2 per million: the card shows it
	if c := run.Summary.Cost; c == nil || math.Abs(c.Amount-0.00036) > 1e-12 || c.Currency != "USD" || c.Source != llm.PriceFromUser {
		t.Fatalf("the child's cost %+v", c)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"web_fetch", "web_search"}; !slices.Equal(childTools, want) {
		t.Fatalf("the researcher was offered %v, want %v", childTools, want)
	}
	for _, want := range []string{"A cairn is a pile of stones", `Sub-agent "scout" (researcher) finished.`, "Tools called: web_search ×1.", "Tokens: 330.", "Cost: 0.00036 USD."} {
		if !strings.Contains(end.Tool.Content, want) {
			t.Fatalf("the parent read %q, without %q", end.Tool.Content, want)
		}
	}
	if last := snap.Messages[len(snap.Messages)-1]; last.Status != chat.MessageComplete {
		t.Fatalf("parent ended %s", last.Status)
	}
	child, err := s.Chat.GetSession(ctx, run.SessionID)
	if err != nil || child.Session.ParentID != sess.ID || child.Session.ParentCallID != "a1" || len(child.Messages) != 2 {
		t.Fatalf("child %+v %v", child.Session, err)
	}
	list, err := s.Chat.ListSessions(ctx, "")
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].ID != sess.ID {
		t.Fatalf("the list shows %+v %v", list.Sessions, err)
	}
	got, err := s.Agents().GetRun(ctx, sess.ID, "a1")
	if err != nil || got.SessionID != run.SessionID || got.State != agents.StateDone || len(got.Summary.Calls) != 1 {
		t.Fatalf("GetRun %+v %v", got, err)
	}
}

// TestSubAgentRefusals: a coder outside a task session, an unknown type and a background
// run are tool errors the model reads, and no child is started.
func TestSubAgentRefusals(t *testing.T) {
	cases := []struct {
		args map[string]any
		code apperr.Code
	}{
		{map[string]any{"description": "d", "prompt": "p", "type": "coder"}, apperr.AgentTypeNeedsTask},
		{map[string]any{"description": "d", "prompt": "p", "type": "poet"}, apperr.AgentTypeUnknown},
	}
	for _, c := range cases {
		t.Run(string(c.code), func(t *testing.T) {
			s, srv, sess := agentChat(t, agents.Name)
			srv.Handle(agentModel(delegating(c.args), func(llmtest.Request) llmtest.Reply {
				t.Error("a sub-agent was asked")
				return llmtest.Reply{Text: "no"}
			}))
			if _, err := s.Chat.SendMessage(context.Background(), sess.ID, "go"); err != nil {
				t.Fatal(err)
			}
			end, _ := agentEnd(t, waitIdle(t, s, sess.ID))
			if end.Type != chat.PartToolError || end.Tool.Error == nil || end.Tool.Error.Code != c.code {
				t.Fatalf("end %s %+v", end.Type, end.Tool.Error)
			}
			runs, _ := s.Agents().ListRuns(context.Background(), sess.ID)
			if len(runs) != 0 {
				t.Fatalf("runs %+v", runs)
			}
		})
	}
}

// TestSubAgentBudgets: a child that keeps calling tools is stopped by its round budget,
// one that spends tokens by its token budget, a slow one by its time; each ends with a
// clear account the parent reads.
func TestSubAgentBudgets(t *testing.T) {
	cases := []struct {
		name    string
		setting string
		value   any
		reply   llmtest.Reply
		code    apperr.Code
		say     string
	}{
		{"rounds", agents.SettingMaxRounds, 2, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent_nothing", Arguments: `{}`}}}, apperr.MaxRoundsReached, "tool rounds"},
		{"tokens", agents.SettingMaxTokens, 1000, llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent_nothing", Arguments: `{}`}},
			Usage: &llmtest.Usage{PromptTokens: 900, CompletionTokens: 200}}, apperr.AgentTokenBudget, "budget of 1000"},
		{"time", agents.SettingMaxDuration, "1s", llmtest.Reply{Text: "late", FirstDelay: 3 * time.Second}, apperr.AgentTimeBudget, "limit of 1s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, srv, sess := agentChat(t, agents.Name)
			if _, err := s.Settings.Set(context.Background(), c.setting, c.value); err != nil {
				t.Fatal(err)
			}
			srv.Handle(agentModel(delegating(map[string]any{"description": "loop", "prompt": "go on", "type": "general"}),
				func(llmtest.Request) llmtest.Reply { return c.reply }))
			if _, err := s.Chat.SendMessage(context.Background(), sess.ID, "go"); err != nil {
				t.Fatal(err)
			}
			end, run := agentEnd(t, waitIdle(t, s, sess.ID))
			if end.Type != chat.PartToolResult || run.State != agents.StateBudget || run.Summary.Error == nil || run.Summary.Error.Code != c.code {
				t.Fatalf("end %s %+v", end.Type, run)
			}
			if !strings.Contains(end.Tool.Content, "was stopped because") || !strings.Contains(end.Tool.Content, c.say) {
				t.Fatalf("the parent read %q", end.Tool.Content)
			}
		})
	}
}

// coderTask is a task session with the sandbox and sub-agents whose model delegates to a
// coder named builder; child scripts the coder.
func coderTask(t *testing.T, child func(llmtest.Request) llmtest.Reply) (*Services, chat.Session) {
	t.Helper()
	s, srv, sess := taskBackend(t, strongLocal{})
	ts := []string{sandbox.Name, agents.Name}
	if _, err := s.Chat.UpdateSession(context.Background(), sess.ID, chat.SessionPatch{Toolsets: &ts}); err != nil {
		t.Fatal(err)
	}
	srv.Handle(agentModel(delegating(map[string]any{"description": "write a file", "prompt": "write it", "type": "coder", "name": "builder"}), child))
	return s, sess
}

// TestSubAgentAsksInTheParentsDialog: a coder's write asks; the request belongs to the
// parent's session and names the sub-agent, the parent waits for approval meanwhile,
// and once allowed the write lands in the parent's workspace.
func TestSubAgentAsksInTheParentsDialog(t *testing.T) {
	s, sess := coderTask(t, func(r llmtest.Request) llmtest.Reply {
		if toolTurns(r) == 0 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: sandbox.WriteTool, Arguments: `{"path":"out.txt","content":"built\n"}`}}}
		}
		return llmtest.Reply{Text: "wrote out.txt"}
	})
	ctx := context.Background()
	if _, err := s.Chat.SendMessage(ctx, sess.ID, "build"); err != nil {
		t.Fatal(err)
	}
	req := waitPending(t, s, sess.ID)
	if req.Agent == nil || req.Agent.Name != "builder" || req.Agent.SessionID == "" || req.Tool != sandbox.WriteTool {
		t.Fatalf("request %+v agent %+v", req, req.Agent)
	}
	waitState(t, s, sess.ID, chat.StateAwaitingApproval)
	if _, err := s.Approval.Decide(ctx, req.ID, string(approval.AllowOnce), "", "test"); err != nil {
		t.Fatal(err)
	}
	end, run := agentEnd(t, waitIdle(t, s, sess.ID))
	if end.Type != chat.PartToolResult || run.State != agents.StateDone || run.SessionID != req.Agent.SessionID {
		t.Fatalf("end %s %+v", end.Type, run)
	}
	ws, err := s.Sandbox().Workspaces().Workspace(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "built\n" {
		t.Fatalf("the parent's workspace holds %q %v", b, err)
	}
	child, _ := s.Chat.GetSession(ctx, run.SessionID)
	var asked bool
	for _, p := range child.Messages[len(child.Messages)-1].Parts {
		asked = asked || p.Type == chat.PartApprovalRequested
	}
	if !asked {
		t.Fatal("the child's conversation does not show its approval request")
	}
}

// TestParentStopEndsTheChild: in bypass mode (the parent's mode applies to the child) a
// coder runs a long command; the parent's Stop ends the command, the child and the call.
func TestParentStopEndsTheChild(t *testing.T) {
	s, sess := coderTask(t, func(r llmtest.Request) llmtest.Reply {
		if toolTurns(r) == 0 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: sandbox.BashTool, Arguments: `{"command":"sleep 3 && echo late > late.txt"}`}}}
		}
		return llmtest.Reply{Text: "done"}
	})
	ctx := context.Background()
	if _, err := s.Approval.SetSessionMode(ctx, sess.ID, "bypassPermissions"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Chat.SendMessage(ctx, sess.ID, "build"); err != nil {
		t.Fatal(err)
	}
	childID := waitChildCallRunning(t, s, sess.ID)
	start := time.Now()
	if err := s.Chat.Stop(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Fatalf("stop took %s", d)
	}
	child := waitIdle(t, s, childID)
	last := child.Messages[len(child.Messages)-1]
	var bashEnd chat.PartType
	for _, p := range last.Parts {
		if p.Tool != nil && p.Tool.Name == sandbox.BashTool && p.Type != chat.PartToolCall {
			bashEnd = p.Type
		}
	}
	if last.Status != chat.MessageStopped || bashEnd != chat.PartToolStopped {
		t.Fatalf("child ended %s, its command %s", last.Status, bashEnd)
	}
	ws, _ := s.Sandbox().Workspaces().Workspace(ctx, sess.ID)
	time.Sleep(3500*time.Millisecond - time.Since(start))
	if _, err := os.Stat(filepath.Join(ws, "late.txt")); !os.IsNotExist(err) {
		t.Fatalf("the command went on after the stop: %v", err)
	}
	if run, err := s.Agents().GetRun(ctx, sess.ID, "a1"); err != nil || run.State != agents.StateStopped {
		t.Fatalf("run %+v %v", run, err)
	}
}

// waitChildCallRunning waits until the sub-agent of session parentID has a tool call
// running and returns the child's session.
func waitChildCallRunning(t *testing.T, s *Services, parentID string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		kids, _ := s.Chat.ChildSessions(context.Background(), parentID)
		for _, k := range kids {
			snap, err := s.Chat.GetSession(context.Background(), k.ID)
			if err != nil || len(snap.Messages) == 0 {
				continue
			}
			for _, p := range snap.Messages[len(snap.Messages)-1].Parts {
				if p.Type == chat.PartToolCall && p.Tool != nil && p.Tool.StartedAt > 0 {
					return k.ID
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no sub-agent call started")
	return ""
}

// waitState waits until a session is in state want.
func waitState(t *testing.T, s *Services, sessionID string, want chat.State) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Chat.State(sessionID) != want {
		if time.Now().After(deadline) {
			t.Fatalf("session %s is %s, not %s", sessionID, s.Chat.State(sessionID), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSubAgentsRunUpToTheCap: two sub-agents started in one turn run side by side, or one
// after the other when agents.maxParallel is 1.
func TestSubAgentsRunUpToTheCap(t *testing.T) {
	for _, c := range []struct{ limit, want int }{{1, 1}, {2, 2}} {
		t.Run(fmt.Sprint(c.limit), func(t *testing.T) {
			s, srv, sess := agentChat(t, agents.Name)
			if _, err := s.Settings.Set(context.Background(), agents.SettingMaxParallel, c.limit); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			now, most := 0, 0
			args := `{"description":"d","prompt":"wait","type":"general"}`
			srv.Handle(agentModel(func(r llmtest.Request) llmtest.Reply {
				if toolTurns(r) == 0 {
					return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "a1", Name: agents.ToolName, Arguments: args}, {ID: "a2", Name: agents.ToolName, Arguments: args}}}
				}
				return llmtest.Reply{Text: "both done"}
			}, func(llmtest.Request) llmtest.Reply {
				mu.Lock()
				now++
				most = max(most, now)
				mu.Unlock()
				time.Sleep(300 * time.Millisecond)
				mu.Lock()
				now--
				mu.Unlock()
				return llmtest.Reply{Text: "waited"}
			}))
			if _, err := s.Chat.SendMessage(context.Background(), sess.ID, "go"); err != nil {
				t.Fatal(err)
			}
			waitIdle(t, s, sess.ID)
			runs, err := s.Agents().ListRuns(context.Background(), sess.ID)
			if err != nil || len(runs) != 2 || runs[0].State != agents.StateDone || runs[1].State != agents.StateDone {
				t.Fatalf("runs %+v %v", runs, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if most != c.want {
				t.Fatalf("at most %d sub-agents ran at once, want %d", most, c.want)
			}
		})
	}
}

// TestBackgroundSubAgent: with run_in_background the call returns the task id at once and
// the child runs on as a background task of the parent's session, whose summary is its
// answer once it ends.
func TestBackgroundSubAgent(t *testing.T) {
	s, srv, sess := agentChat(t, agents.Name)
	srv.Handle(agentModel(delegating(map[string]any{"description": "d", "prompt": "count stones", "type": "general", "name": "bg", "run_in_background": true}),
		func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Text: "Seven stones.", Delay: 50 * time.Millisecond}
		}))
	if _, err := s.Chat.SendMessage(context.Background(), sess.ID, "go"); err != nil {
		t.Fatal(err)
	}
	end, _ := agentEnd(t, waitIdle(t, s, sess.ID))
	if end.Type != chat.PartToolResult || !strings.Contains(end.Tool.Content, "started in the background as task") {
		t.Fatalf("end %s %q", end.Type, end.Tool.Content)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		l := s.Tasks().List(sess.ID)
		if len(l.Tasks) == 1 && l.Tasks[0].State == tasks.StateDone {
			if l.Tasks[0].Kind != "agent" || !strings.Contains(l.Tasks[0].Summary, "Seven stones.") {
				t.Fatalf("task %+v", l.Tasks[0])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background child did not finish: %+v", l)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
