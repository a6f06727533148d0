package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/tools"
)

// deepSeekModel answers like DeepSeek's thinking mode: it thinks, calls lookup twice
// (the second time with no reasoning at all), then answers; the server refuses, with
// DeepSeek's 400, any request whose history drops a tool-call message's reasoning.
func deepSeekModel(req llmtest.Request) llmtest.Reply {
	tools := 0 // tool results since the latest question
	for _, m := range req.Body.Messages {
		switch m.Role {
		case "tool":
			tools++
		case "user":
			tools = 0
		}
	}
	switch tools {
	case 0:
		return llmtest.Reply{Reasoning: "I should look it up.", ToolCalls: []llmtest.ToolCall{{Name: "lookup", Arguments: `{"q":"a"}`}}}
	case 1:
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "lookup", Arguments: `{"q":"b"}`}}}
	}
	return llmtest.Reply{Reasoning: "Both found.", Text: "Here it is."}
}

func deepSeekProvider(t *testing.T, h *harness, preset string) (llm.Provider, *llmtest.Server) {
	t.Helper()
	srv := llmtest.Start(t)
	srv.Handle(llmtest.DeepSeekThinking(deepSeekModel))
	p, err := h.providers.Save(context.Background(), llm.ProviderInput{Name: "DeepSeek " + preset, Preset: preset, BaseURL: srv.URL,
		APIKey: "sk-deepseek-test-123456", Models: []llm.Model{{ID: "deepseek-chat", SupportsTools: true, Reasoning: true}}})
	if err != nil {
		t.Fatal(err)
	}
	return p, srv
}

// A two-round tool loop against a DeepSeek-shaped server: every request carries the
// reasoning of each earlier tool-call message (an empty one included), the plain answer's
// reasoning is never sent back, and a later question, rebuilt from the database, passes
// too.
func TestDeepSeekToolLoopSendsReasoningBack(t *testing.T) {
	runner := newFakeRunner(func(context.Context, tools.Call) tools.Outcome { return resultOf("found") }, "lookup")
	h := newHarness(t, runner)
	p, srv := deepSeekProvider(t, h, "deepseek")
	sess := h.session(SessionInput{ProviderID: p.ID})
	_, snap := h.send(sess.ID, "find a and b")
	if a := last(snap); a.Status != MessageComplete {
		t.Fatalf("answer = %s %+v", a.Status, a.Error)
	}
	_, snap = h.send(sess.ID, "again")
	if a := last(snap); a.Status != MessageComplete {
		t.Fatalf("second answer = %s %+v", a.Status, a.Error)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("requests = %d, want 3 rounds × 2 questions", len(reqs))
	}
	wantReasoning := []string{"I should look it up.", ""}
	for i, r := range reqs {
		if r.Body.MissingReasoning() >= 0 {
			t.Fatalf("request %d drops reasoning: %s", i, r.Raw)
		}
		calls := 0
		for _, m := range r.Body.Messages {
			switch {
			case m.Role == "assistant" && len(m.ToolCalls) > 0:
				if want := wantReasoning[calls%2]; *m.ReasoningContent != want {
					t.Errorf("request %d: tool-call reasoning %q, want %q", i, *m.ReasoningContent, want)
				}
				calls++
			case m.Role == "assistant" && m.ReasoningContent != nil:
				t.Errorf("request %d: a plain answer carries reasoning_content %q", i, *m.ReasoningContent)
			}
		}
	}
}

// The same server behind a provider Cairn does not know as DeepSeek fails the second
// round with an error that says what to change, not just "400".
func TestUnknownProviderNeedingReasoningExplains(t *testing.T) {
	runner := newFakeRunner(func(context.Context, tools.Call) tools.Outcome { return resultOf("found") }, "lookup")
	h := newHarness(t, runner)
	p, _ := deepSeekProvider(t, h, llm.PresetCustom)
	sess := h.session(SessionInput{ProviderID: p.ID})
	_, snap := h.send(sess.ID, "find a and b")
	a := last(snap)
	if a.Status != MessageError || a.Error == nil || a.Error.Code != apperr.ModelReasoningRequired {
		t.Fatalf("answer = %s %+v", a.Status, a.Error)
	}
	if a.Error.Action == nil || a.Error.Action.Target != "providers" || a.Error.Params["model"] != "deepseek-chat" {
		t.Fatalf("error = %+v", a.Error)
	}
}

// The conversation's reasoning choice goes over the model's, in the provider's fields.
func TestReasoningChoiceReachesTheRequest(t *testing.T) {
	h := newHarness(t, nil)
	srv := llmtest.Start(t)
	p, err := h.providers.Save(context.Background(), llm.ProviderInput{Name: "Qwen", Preset: "qwen", BaseURL: srv.URL, APIKey: "sk-qwen-test-123456",
		Models: []llm.Model{{ID: "qwen-plus", ReasoningEffort: llm.EffortOn, ReasoningBudget: 500}}})
	if err != nil {
		t.Fatal(err)
	}
	sess := h.session(SessionInput{ProviderID: p.ID})
	h.send(sess.ID, "one")
	off := llm.Reasoning{Effort: llm.EffortOff}
	if _, err := h.svc.UpdateSession(context.Background(), sess.ID, SessionPatch{Reasoning: &off}); err != nil {
		t.Fatal(err)
	}
	h.send(sess.ID, "two")
	if _, err := h.svc.UpdateSession(context.Background(), sess.ID, SessionPatch{Reasoning: &llm.Reasoning{Effort: "turbo"}}); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("unknown effort accepted: %v", err)
	}
	reqs := srv.Requests()
	if got := string(reqs[0].Raw); !containsAll(got, `"enable_thinking":true`, `"thinking_budget":500`) {
		t.Errorf("model's choice not sent: %s", got)
	}
	if got := string(reqs[1].Raw); !containsAll(got, `"enable_thinking":false`) {
		t.Errorf("conversation's choice not sent: %s", got)
	}
	got, err := h.svc.GetSession(context.Background(), sess.ID)
	if err != nil || got.Session.Reasoning != off {
		t.Fatalf("stored reasoning = %+v, %v", got.Session.Reasoning, err)
	}
}

// A provider that stops between chunks ends the answer after chat.streamIdleTimeout with
// the text that arrived kept and a retry offered; the next answer works.
func TestStalledStreamEndsWithPartialKept(t *testing.T) {
	h := newHarness(t, nil)
	if _, err := h.settings.Set(context.Background(), "chat.streamIdleTimeout", "1s"); err != nil {
		t.Fatal(err)
	}
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Text: "kept part, then silence", ChunkRunes: 5, StallAfter: 3})
	start := time.Now()
	_, snap := h.send(sess.ID, "hello")
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("took %v", el)
	}
	a := last(snap)
	if a.Status != MessageError || a.Error == nil || a.Error.Code != apperr.ModelStreamStalled || a.Error.Action == nil || a.Error.Action.Kind != "retry" {
		t.Fatalf("answer = %s %+v", a.Status, a.Error)
	}
	if a.Parts[0].Type != PartText || a.Parts[0].Text != "kept part," {
		t.Fatalf("partial = %+v", a.Parts[0])
	}
	h.srv.Enqueue(llmtest.Reply{Text: "recovered"})
	if _, snap = h.send(sess.ID, "again"); last(snap).Status != MessageComplete {
		t.Fatalf("next answer: %+v", last(snap))
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
