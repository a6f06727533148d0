package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/websearch"
)

// TestWebSearchThroughTheWholeBackend: a session with the web toolset is offered
// web_search; the model's call goes to the chosen provider (a local SearXNG), the model
// reads who answered and the results, the card gets the answer; with Tavily chosen and no
// key the call is a tool error the window renders as tavily_api_key_required with the way
// to Settings → Web search, and the model reads the reason.
func TestWebSearchThroughTheWholeBackend(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			t.Errorf("SearXNG asked %s", r.URL)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"query":"cairn","results":[{"url":"https://example.org/cairn","title":"Cairn","content":"A pile of stones","engine":"bing"}]}`)
	}))
	defer searx.Close()
	srv := llmtest.Start(t)
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for k, v := range map[string]any{websearch.SettingProvider: websearch.SearXNG, websearch.EndpointSetting(websearch.SearXNG): searx.URL} {
		if _, err := s.Settings.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m", SupportsTools: true, ContextWindow: 32000}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "m", Toolsets: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(id string) chat.Part {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "web_search", Arguments: `{"query":"cairn"}`}}},
			llmtest.Reply{Text: "ok"})
		if _, err := s.Chat.SendMessage(ctx, sess.ID, "search"); err != nil {
			t.Fatal(err)
		}
		snap := waitIdle(t, s, sess.ID)
		for _, part := range snap.Messages[len(snap.Messages)-1].Parts {
			if part.Tool != nil && part.Tool.CallID == id && part.Type != chat.PartToolCall {
				return part
			}
		}
		t.Fatalf("no end of call %s", id)
		return chat.Part{}
	}

	end := ask("s1")
	var ans websearch.Answer
	if end.Type != chat.PartToolResult || json.Unmarshal(end.Tool.Display, &ans) != nil || ans.Provider != websearch.SearXNG || len(ans.Results) != 1 {
		t.Fatalf("end %+v", end.Tool)
	}
	reqs := srv.Requests()
	first := reqs[len(reqs)-2]
	if !slices.Contains(first.Body.ToolNames(), "web_search") || !slices.Contains(first.Body.ToolNames(), "web_fetch") {
		t.Fatalf("tools offered %v", first.Body.ToolNames())
	}
	if got := reqs[len(reqs)-1].Body.LastMessage().Content; !strings.Contains(got, `Results from SearXNG for "cairn"`) || !strings.Contains(got, "https://example.org/cairn") {
		t.Fatalf("model read %q", got)
	}

	if _, err := s.Settings.Set(ctx, websearch.SettingProvider, websearch.Tavily); err != nil {
		t.Fatal(err)
	}
	end = ask("s2")
	e := end.Tool.Error
	if end.Type != chat.PartToolError || e == nil || e.Code != apperr.TavilyKeyRequired || e.Action == nil || e.Action.Target != "web-search" {
		t.Fatalf("end %+v", end.Tool)
	}
	reqs = srv.Requests()
	if got := reqs[len(reqs)-1].Body.LastMessage().Content; !strings.Contains(got, "Tavily") || !strings.Contains(got, "API key") {
		t.Fatalf("model read %q", got)
	}
}
