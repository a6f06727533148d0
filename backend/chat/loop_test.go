package chat

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tools"
)

func TestLoopWithParallelTools(t *testing.T) {
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome {
		return resultOf("result of " + c.Name + " for " + c.Arguments)
	}, "web_search", "kb_search")
	h := newHarness(t, runner)
	sess := h.session(SessionInput{SystemPrompt: "You are terse.", Toolsets: []string{"web", "kb"}})
	h.srv.Enqueue(
		llmtest.Reply{Reasoning: "I should search both.", Text: "Let me check.", Interleave: true, SplitToolHead: true, ArgBytes: 2,
			ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "web_search", Arguments: `{"q":"北京 weather"}`}, {ID: "call_2", Name: "kb_search", Arguments: `{"q":"notes"}`}}},
		llmtest.Reply{Text: "Final **answer**: sunny. 🌞", ChunkRunes: 2},
	)
	sub := h.bus.Subscribe(8192)
	defer sub.Close()
	w := &window{}
	snap0, _ := h.svc.GetSession(context.Background(), sess.ID)
	w.load(snap0)

	res, snap := h.send(sess.ID, "What is the weather?")
	drainUntilIdle(t, sub, events.SessionTopic(sess.ID), w)

	if len(snap.Messages) != 2 || snap.Messages[0].ID != res.UserMessageID || snap.Messages[1].ID != res.AssistantMessageID {
		t.Fatalf("messages = %+v", snap.Messages)
	}
	a := last(snap)
	want := []PartType{PartReasoning, PartText, PartToolCall, PartToolCall, PartToolResult, PartToolResult, PartText}
	got := partTypes(a)
	// results may finish in either order; compare as multiset per position group
	if len(got) != len(want) || !slices.Equal(got[:4], want[:4]) || got[6] != PartText {
		t.Fatalf("parts = %v, want %v", got, want)
	}
	if a.Status != MessageComplete || a.FinishReason != "stop" || a.Usage == nil || a.Usage.TotalTokens == 0 || a.Error != nil {
		t.Fatalf("assistant = %+v", a)
	}
	if a.Parts[2].Tool.CallID != "call_1" || a.Parts[2].Tool.Arguments != `{"q":"北京 weather"}` || a.Parts[3].Tool.Name != "kb_search" {
		t.Fatalf("tool calls = %+v %+v", a.Parts[2].Tool, a.Parts[3].Tool)
	}
	if a.Parts[6].Text != "Final **answer**: sunny. 🌞" || a.Parts[6].Round != 1 || a.Parts[0].Round != 0 {
		t.Fatalf("final text part = %+v", a.Parts[6])
	}
	for _, p := range a.Parts {
		if p.State != PartDone {
			t.Fatalf("part %d left %s", p.Index, p.State)
		}
	}
	if snap.Session.Title != "What is the weather?" || snap.State != StateIdle || snap.EditMode != EditMode {
		t.Fatalf("session = %+v state %s", snap.Session, snap.State)
	}

	// Both calls of the turn went to RunBatch together.
	if runner.batchCount() != 1 || len(runner.batches[0]) != 2 {
		t.Fatalf("batches = %+v", runner.batches)
	}
	if sc := runner.scopes[0]; !sc.Model.SupportsTools || sc.Model.ContextWindow != 32768 || !sc.HasToolset("web") || sc.SessionKind != KindChat {
		t.Fatalf("scope = %+v", sc)
	}

	// The second request carries the system prompt, the tools, the calls and the results.
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d", len(reqs))
	}
	r1 := reqs[1].Body
	if r1.Messages[0].Role != "system" || !strings.Contains(r1.Messages[0].Content, "You are terse.") || !strings.Contains(r1.Messages[0].Content, "Use the tools") {
		t.Fatalf("system = %+v", r1.Messages[0])
	}
	if !slices.Equal(r1.ToolNames(), []string{"web_search", "kb_search"}) {
		t.Fatalf("tools = %v", r1.ToolNames())
	}
	roles := []string{}
	for _, m := range r1.Messages {
		roles = append(roles, m.Role)
	}
	if !slices.Equal(roles, []string{"system", "user", "assistant", "tool", "tool"}) {
		t.Fatalf("roles = %v", roles)
	}
	asst := r1.Messages[2]
	if asst.Content != "Let me check." || len(asst.ToolCalls) != 2 || asst.ToolCalls[1].Function.Arguments != `{"q":"notes"}` {
		t.Fatalf("assistant turn = %+v", asst)
	}
	if r1.Messages[3].ToolCallID != "call_1" || r1.Messages[3].Content != `result of web_search for {"q":"北京 weather"}` {
		t.Fatalf("tool message = %+v", r1.Messages[3])
	}

	// A window that applied every event renders exactly the stored state.
	if a, b := renderable(w.msgs), renderable(ptrs(snap.Messages)); a != b {
		t.Fatalf("window differs from snapshot:\nwindow %s\nstored %s", a, b)
	}
}

func TestTwoWindowsSeeTheSameStream(t *testing.T) {
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Reasoning: strings.Repeat("think ", 40), Text: strings.Repeat("汉字 and emoji 😀 ", 80), ChunkRunes: 3, Delay: 2 * time.Millisecond})
	first := h.bus.Subscribe(8192)
	defer first.Close()
	w1 := &window{}
	s0, _ := h.svc.GetSession(context.Background(), sess.ID)
	w1.load(s0)
	if _, err := h.svc.SendMessage(context.Background(), sess.ID, "stream please"); err != nil {
		t.Fatal(err)
	}
	// The second window opens mid-stream: it subscribes, loads a snapshot, and applies
	// only newer events.
	topic := events.SessionTopic(sess.ID)
	for {
		ev := <-first.C
		if err := w1.apply(ev); err != nil {
			t.Fatal(err)
		}
		if ev.Topic == topic && ev.Type == EventPartDelta {
			var d PartDelta
			_ = json.Unmarshal(ev.Data, &d)
			if d.Offset > 100 {
				break
			}
		}
	}
	second := h.bus.Subscribe(8192)
	defer second.Close()
	w2 := &window{}
	mid, err := h.svc.GetSession(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mid.State != StateStreaming || last(mid).Status != MessageStreaming {
		t.Fatalf("mid-stream snapshot state %s / %s", mid.State, last(mid).Status)
	}
	w2.load(mid)
	drainUntilIdle(t, first, topic, w1)
	drainUntilIdle(t, second, topic, w2)
	final, _ := h.svc.GetSession(context.Background(), sess.ID)
	want := renderable(ptrs(final.Messages))
	if got := renderable(w1.msgs); got != want {
		t.Fatalf("first window:\n%s\nwant\n%s", got, want)
	}
	if got := renderable(w2.msgs); got != want {
		t.Fatalf("second window:\n%s\nwant\n%s", got, want)
	}
}

func TestInvalidToolArgumentsReachTheRunner(t *testing.T) {
	var gotArgs string
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome {
		gotArgs = c.Arguments
		var v any
		if json.Unmarshal([]byte(c.Arguments), &v) != nil {
			return tools.Outcome{Status: tools.StatusError, Content: "Error: the arguments are not valid JSON; send an object like {\"q\": \"…\"}",
				Err: apperr.New(apperr.ToolArgsInvalidJSON, "bad json").WithParam("name", c.Name)}
		}
		return resultOf("ok")
	}, "web_search")
	h := newHarness(t, runner)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"q": "unterminated`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "web_search", Arguments: `{"q":"fixed"}`}}},
		llmtest.Reply{Text: "Done."},
	)
	_, snap := h.send(sess.ID, "search")
	a := last(snap)
	if a.Status != MessageComplete || gotArgs != `{"q":"fixed"}` {
		t.Fatalf("status %s, last args %q", a.Status, gotArgs)
	}
	var errPart *Part
	for i := range a.Parts {
		if a.Parts[i].Type == PartToolError {
			errPart = &a.Parts[i]
		}
	}
	if errPart == nil || errPart.Tool.Error == nil || errPart.Tool.Error.Code != apperr.ToolArgsInvalidJSON || errPart.Tool.CallID != "c1" {
		t.Fatalf("tool error part = %+v", errPart)
	}
	second := h.srv.Requests()[1].Body
	if tm := second.LastMessage(); tm.Role != "tool" || !strings.Contains(tm.Content, "not valid JSON") {
		t.Fatalf("model did not get the readable error: %+v", tm)
	}
}

func TestStopMidTool(t *testing.T) {
	canceled := make(chan struct{})
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome {
		<-ctx.Done()
		close(canceled)
		return tools.Outcome{Status: tools.StatusStopped, Err: apperr.New(apperr.ToolStopped, "stopped").WithParam("name", c.Name)}
	}, "sandbox_bash")
	h := newHarness(t, runner)
	sess := h.session(SessionInput{Kind: KindTask})
	h.srv.Enqueue(llmtest.Reply{Text: "Running it.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "sandbox_bash", Arguments: `{"q":"sleep 100"}`}}})
	if _, err := h.svc.SendMessage(context.Background(), sess.ID, "run a long command"); err != nil {
		t.Fatal(err)
	}
	<-runner.started
	if st := h.svc.State(sess.ID); st != StateStreaming {
		t.Fatalf("state while a tool runs = %s", st)
	}
	start := time.Now()
	if err := h.svc.Stop(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("stop took %v", el)
	}
	select {
	case <-canceled:
	default:
		t.Fatal("the tool's context was not cancelled")
	}
	snap, _ := h.svc.GetSession(context.Background(), sess.ID)
	a := last(snap)
	if a.Status != MessageStopped || a.Error != nil || snap.State != StateIdle {
		t.Fatalf("message %s err %v state %s", a.Status, a.Error, snap.State)
	}
	if got := partTypes(a); !slices.Equal(got, []PartType{PartText, PartToolCall, PartToolStopped}) {
		t.Fatalf("parts = %v", got)
	}
	if a.Parts[1].Tool.StartedAt == 0 {
		t.Fatal("tool-call part was not marked running")
	}
	if len(h.srv.Requests()) != 1 {
		t.Fatalf("the model was called again after stop: %d requests", len(h.srv.Requests()))
	}
}

func TestStopAbandonsAToolThatIgnoresCancellation(t *testing.T) {
	release := make(chan struct{})
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome {
		<-release // ignores ctx
		return resultOf("late result")
	}, "mcp_tool")
	h := newHarness(t, runner, func(c *Config) { c.StopGrace = 100 * time.Millisecond })
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp_tool", Arguments: `{}`}}})
	if _, err := h.svc.SendMessage(context.Background(), sess.ID, "go"); err != nil {
		t.Fatal(err)
	}
	<-runner.started
	start := time.Now()
	if err := h.svc.Stop(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("stop waited %v for a stuck tool", el)
	}
	close(release)
	<-runner.ended // the abandoned tool reported its late result; it must be ignored
	snap, _ := h.svc.GetSession(context.Background(), sess.ID)
	if got := partTypes(last(snap)); !slices.Equal(got, []PartType{PartToolCall, PartToolStopped}) || last(snap).Status != MessageStopped {
		t.Fatalf("parts = %v status %s", got, last(snap).Status)
	}
}

func TestStopMidStreamKeepsText(t *testing.T) {
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Text: strings.Repeat("word ", 500), ChunkRunes: 5, Delay: 20 * time.Millisecond})
	sub := h.bus.Subscribe(1024)
	defer sub.Close()
	if _, err := h.svc.SendMessage(context.Background(), sess.ID, "long answer"); err != nil {
		t.Fatal(err)
	}
	for ev := range sub.C {
		if ev.Type == EventPartDelta {
			break
		}
	}
	if err := h.svc.Stop(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
	snap, _ := h.svc.GetSession(context.Background(), sess.ID)
	a := last(snap)
	if a.Status != MessageStopped || len(a.Parts) != 1 || a.Parts[0].State != PartDone || !strings.HasPrefix(a.Parts[0].Text, "word word") {
		t.Fatalf("after stop: %+v", a)
	}
	// Stopping an idle session is a no-op.
	if err := h.svc.Stop(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
}

func TestProviderErrorsEndTheMessage(t *testing.T) {
	tests := []struct {
		name    string
		reply   llmtest.Reply
		code    apperr.Code
		partial string
	}{
		{"401", llmtest.Scenarios()["401"](llmtest.Request{}), apperr.ModelAuthFailed, ""},
		{"404", llmtest.Scenarios()["404"](llmtest.Request{Body: llmtest.ChatRequest{Model: "fake-model"}}), apperr.ModelNotFound, ""},
		{"500", llmtest.Scenarios()["500"](llmtest.Request{}), apperr.ModelServerError, ""},
		{"cut mid-chunk keeps text", llmtest.Reply{Text: "kept text then cut", ChunkRunes: 5, CutAfter: 3}, apperr.ModelStreamMalformed, "kept text "},
		{"malformed keeps text", llmtest.Reply{Text: "abcdefghij", ChunkRunes: 2, MalformedAfter: 3}, apperr.ModelStreamMalformed, "abcd"},
		{"429 beyond the cap", llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "60"}, Error: &llmtest.APIError{Message: "slow down"}}, apperr.ModelRateLimited, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil)
			sess := h.session(SessionInput{})
			h.srv.Enqueue(tt.reply)
			_, snap := h.send(sess.ID, "hello")
			a := last(snap)
			if a.Status != MessageError || a.Error == nil || a.Error.Code != tt.code {
				t.Fatalf("message = %s %+v", a.Status, a.Error)
			}
			st := a.Parts[len(a.Parts)-1]
			if st.Type != PartStatus || st.Status.Kind != StatusError || st.Status.Error.Code != tt.code {
				t.Fatalf("status part = %+v", st)
			}
			if tt.partial != "" && (a.Parts[0].Type != PartText || a.Parts[0].Text != tt.partial) {
				t.Fatalf("partial text = %+v", a.Parts[0])
			}
			// The session is usable again right away.
			h.srv.Enqueue(llmtest.Reply{Text: "recovered"})
			_, snap = h.send(sess.ID, "again")
			if last(snap).Status != MessageComplete {
				t.Fatalf("next answer: %+v", last(snap))
			}
			// The failed answer with no content is not sent back to the model.
			body := h.srv.Requests()[len(h.srv.Requests())-1].Body
			for _, m := range body.Messages {
				if m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) == 0 {
					t.Fatalf("empty assistant turn sent: %+v", body.Messages)
				}
			}
		})
	}
}

func TestRateLimitRetryShowsStatus(t *testing.T) {
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Status: 429, Header: map[string]string{"retry-after-ms": "30"}, Error: &llmtest.APIError{Message: "Rate limit", Code: "rate_limit_exceeded"}},
		llmtest.Reply{Text: "after the wait"})
	_, snap := h.send(sess.ID, "hi")
	a := last(snap)
	if a.Status != MessageComplete || len(a.Parts) != 2 || a.Parts[0].Type != PartStatus || a.Parts[0].Status.Kind != StatusRetry ||
		a.Parts[0].Status.WaitMs != 30 || a.Parts[0].Status.Error.Code != apperr.ModelRateLimited || a.Parts[1].Text != "after the wait" {
		t.Fatalf("parts = %+v", a.Parts)
	}
}

func TestMaxToolRounds(t *testing.T) {
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome { return resultOf("again") }, "loop_tool")
	h := newHarness(t, runner)
	if _, err := h.settings.Set(context.Background(), "chat.maxToolRounds", 2); err != nil {
		t.Fatal(err)
	}
	h.srv.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "loop_tool", Arguments: "{}"}}}
	})
	sess := h.session(SessionInput{})
	_, snap := h.send(sess.ID, "loop forever")
	a := last(snap)
	if a.Status != MessageError || a.Error.Code != apperr.MaxRoundsReached || a.Error.Params["rounds"] != float64(2) {
		t.Fatalf("message = %s %+v", a.Status, a.Error)
	}
	if runner.batchCount() != 2 || len(h.srv.Requests()) != 3 {
		t.Fatalf("batches %d requests %d", runner.batchCount(), len(h.srv.Requests()))
	}
	if a.Error.Action == nil || a.Error.Action.Kind != "open-settings" {
		t.Fatalf("action = %+v", a.Error.Action)
	}
	types := partTypes(a)
	if types[len(types)-2] != PartToolStopped || types[len(types)-1] != PartStatus {
		t.Fatalf("parts = %v", types)
	}
}

// TestMaxToolRoundsDefaultIsTheSpecs: without a settings service the loop stops at the
// default of the setting's spec, the one place that default is written.
func TestMaxToolRoundsDefaultIsTheSpecs(t *testing.T) {
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome { return resultOf("again") }, "loop_tool")
	h := newHarness(t, runner, func(c *Config) { c.Settings = nil })
	h.srv.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "loop_tool", Arguments: "{}"}}}
	})
	sp, _ := settings.Lookup("chat.maxToolRounds")
	want := sp.Default.(int)
	sess := h.session(SessionInput{})
	_, snap := h.send(sess.ID, "loop forever")
	a := last(snap)
	if a.Error == nil || a.Error.Code != apperr.MaxRoundsReached || a.Error.Params["rounds"] != float64(want) || runner.batchCount() != want {
		t.Fatalf("message %s %+v after %d batches, want the limit %d", a.Status, a.Error, runner.batchCount(), want)
	}
	// The calls the limit cut off end as the one tool-stopped shape, saying why.
	end := a.Parts[len(a.Parts)-2]
	if end.Type != PartToolStopped || end.Tool.Error.Code != apperr.MaxRoundsReached || end.Tool.Error.Params["name"] != "loop_tool" ||
		!strings.Contains(end.Tool.Content, "not run") {
		t.Fatalf("cut-off call = %+v %+v", end, end.Tool)
	}
}

func TestModelWithoutToolsGetsNone(t *testing.T) {
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome { return resultOf("x") }, "web_search")
	h := newHarness(t, runner)
	sess := h.session(SessionInput{Model: "no-tools"})
	h.srv.Enqueue(llmtest.Reply{Text: "plain"})
	_, snap := h.send(sess.ID, "hi")
	if last(snap).Status != MessageComplete || len(h.srv.Requests()[0].Body.Tools) != 0 || len(runner.scopes) != 0 {
		t.Fatalf("tools were offered to a model without tool support")
	}
}

func TestApprovalMovesTheSessionState(t *testing.T) {
	decided := make(chan struct{})
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome { return resultOf("ran") }, "fs_write")
	h := newHarness(t, runner)
	runner.onBatch = func(obs tools.Observer, calls []tools.Call) {
		ao, ok := obs.(ApprovalObserver)
		if !ok {
			t.Error("observer does not implement ApprovalObserver")
			return
		}
		ao.ApprovalRequested(calls[0].ID, json.RawMessage(`{"requestId":"r1","tool":"fs_write"}`))
		<-decided
		ao.ApprovalDecided(calls[0].ID, json.RawMessage(`{"requestId":"r1","decision":"allow_once"}`))
	}
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "fs_write", Arguments: `{}`}}}, llmtest.Reply{Text: "written"})
	sub := h.bus.Subscribe(1024)
	defer sub.Close()
	if _, err := h.svc.SendMessage(context.Background(), sess.ID, "write it"); err != nil {
		t.Fatal(err)
	}
	var states []State
	for ev := range sub.C {
		if ev.Type == EventSessionState {
			var sc StateChange
			_ = json.Unmarshal(ev.Data, &sc)
			states = append(states, sc.State)
			if sc.State == StateAwaitingApproval {
				if got := h.svc.State(sess.ID); got != StateAwaitingApproval {
					t.Fatalf("State() = %s", got)
				}
				list, _ := h.svc.ListSessions(context.Background(), "")
				if list.Sessions[0].State != StateAwaitingApproval {
					t.Fatalf("list state = %s", list.Sessions[0].State)
				}
				close(decided)
			}
			if sc.State == StateIdle {
				break
			}
		}
	}
	if !slices.Equal(states, []State{StateStreaming, StateAwaitingApproval, StateStreaming, StateIdle}) {
		t.Fatalf("states = %v", states)
	}
	snap := h.wait(sess.ID)
	got := partTypes(last(snap))
	if !slices.Equal(got, []PartType{PartToolCall, PartApprovalRequested, PartApprovalDecided, PartToolResult, PartText}) {
		t.Fatalf("parts = %v", got)
	}
	if string(last(snap).Parts[2].Data) != `{"requestId":"r1","decision":"allow_once"}` {
		t.Fatalf("approval data = %s", last(snap).Parts[2].Data)
	}
}

func TestNoRunnerAnswersToolCallsWithAnError(t *testing.T) {
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "ghost", Arguments: "{}"}}}, llmtest.Reply{Text: "ok without tools"})
	_, snap := h.send(sess.ID, "hi")
	a := last(snap)
	if a.Status != MessageComplete || partTypes(a)[1] != PartToolError || a.Parts[1].Tool.Error.Code != apperr.ToolNotFound {
		t.Fatalf("message = %+v", a)
	}
}
