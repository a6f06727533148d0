package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// costlyTools are n MCP-like tools whose descriptions are about words words long.
func costlyTools(n, words int, d tools.Defer) []tools.Entry {
	out := toolstest.MCPLike("srv-big", "Big", n)
	for i := range out {
		out[i].Description = strings.Repeat(fmt.Sprintf("tool %d reads and writes many things; ", i), words/7)
		out[i].Defer = d
	}
	return out
}

// TestToolCostNotice: when a request's tool definitions take more of the model's window
// than chat.toolContextShare allows, the answer shows a tool-cost status part before the
// request goes out, with the figures the request really had; folding (by the gates or by
// chat.foldAllTools, the notice's way out) brings it under and the notice goes.
func TestToolCostNotice(t *testing.T) {
	tests := []struct {
		name     string
		entries  []tools.Entry
		model    string
		settings map[string]any
		notice   bool
		known    bool
	}{
		{"inline tools over a quarter of a known window", costlyTools(12, 70, tools.DeferNever), "window-4k", nil, true, true},
		{"the share raised to all of it", costlyTools(12, 70, tools.DeferNever), "window-4k", map[string]any{"chat.toolContextShare": 100}, false, true},
		{"auto tools fold by themselves", costlyTools(12, 70, tools.DeferAuto), "window-4k", nil, false, true},
		{"an unknown window is the assumed one", costlyTools(60, 70, tools.DeferNever), "window-unknown", nil, true, false},
		{"too few to fold by the gates", costlyTools(4, 300, tools.DeferAuto), "window-4k", nil, true, true},
		{"fold all takes them away", costlyTools(4, 300, tools.DeferAuto), "window-4k", map[string]any{"chat.foldAllTools": true}, false, true},
	}
	// One registry for every case: its tokenizer's vocabulary is built once.
	reg := tools.NewRegistry()
	pipe := tools.NewPipeline(reg, tools.Options{DataDir: t.TempDir()})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if err := reg.ReplaceNamespace("mcp:srv-big", tt.entries); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, pipe)
			models := append(h.provider.Models, llm.Model{ID: "window-unknown", SupportsTools: true}, llm.Model{ID: "window-4k", SupportsTools: true, ContextWindow: 4096})
			if _, err := h.providers.Save(ctx, llm.ProviderInput{ID: h.provider.ID, Name: h.provider.Name, BaseURL: h.provider.BaseURL, Models: models}); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.settings {
				if _, err := h.settings.Set(ctx, k, v); err != nil {
					t.Fatal(err)
				}
			}
			h.srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
			sess := h.session(SessionInput{Toolsets: []string{"mcp"}, Model: tt.model})
			_, snap := h.send(sess.ID, "hello")
			m := last(snap)
			var cost *ToolCost
			for i, p := range m.Parts {
				if p.Type == PartStatus && p.Status != nil && p.Status.Kind == StatusToolCost {
					cost = p.Status.ToolCost
					if i != 0 {
						t.Errorf("the notice is part %d, after %v: it must come before the answer", i, partTypes(m))
					}
				}
			}
			if (cost != nil) != tt.notice {
				t.Fatalf("notice %+v, want one: %v (parts %v)", cost, tt.notice, partTypes(m))
			}
			window := map[bool]int{true: 4096}[tt.known]
			sel, err := pipe.Select(ctx, tools.Scope{SessionID: sess.ID, SessionKind: KindChat, Toolsets: []string{"mcp"},
				Model: tools.ModelCaps{SupportsTools: true, ContextWindow: window}, FoldAll: tt.settings["chat.foldAllTools"] == true})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(h.srv.Requests()[0].Body.ToolNames()); got != len(sel.Tools) {
				t.Fatalf("request carried %d tools, the selection has %d", got, len(sel.Tools))
			}
			if cost == nil {
				return
			}
			if !tt.known {
				window = tools.UnknownContextWindow
			}
			if cost.Tokens != sel.ToolTokens || cost.Window != window || cost.WindowKnown != tt.known || cost.Limit != 25 ||
				cost.Percent != sel.ToolTokens*100/window || cost.Tools != len(sel.Tools) || cost.Percent < 25 {
				t.Fatalf("cost %+v, selection %d tools, %d tokens", cost, len(sel.Tools), sel.ToolTokens)
			}
		})
	}
}
