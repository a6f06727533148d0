package tools

import (
	"slices"
	"strings"
	"testing"
)

// autoCosts is n auto tools costing total tokens between them (the first takes the rest).
func autoCosts(n, total int) []ToolCost {
	out := make([]ToolCost, n)
	for i := range out {
		out[i] = ToolCost{Name: string(rune('a' + i)), Defer: DeferAuto, Tokens: total / n}
	}
	if n > 0 {
		out[0].Tokens += total - (total/n)*n
	}
	return out
}

func TestShouldDeferGates(t *testing.T) {
	const meta = 450
	tests := []struct {
		name   string
		costs  []ToolCost
		window int
		want   bool
	}{
		// Gate 1: more than 10% of the window.
		{"exactly 10% of the window", autoCosts(5, 1000), 10_000, false},
		{"one token over 10%", autoCosts(5, 1001), 10_000, true},
		// Gate 2: at least five auto tools.
		{"four auto tools", autoCosts(4, 5000), 10_000, false},
		{"five auto tools", autoCosts(5, 5000), 10_000, true},
		// Gate 3: the saving exceeds the meta tools' cost.
		{"saving equals meta cost", autoCosts(5, meta), 1000, false},
		{"saving one over meta cost", autoCosts(5, meta+1), 1000, true},
		// Unknown window: UnknownContextWindow applies.
		{"unknown window, just under 10%", autoCosts(5, UnknownContextWindow/10), 0, false},
		{"unknown window, just over 10%", autoCosts(5, UnknownContextWindow/10+1), 0, true},
		// never and approval-gated tools do not count towards the auto pool.
		{"never tools do not count", append(autoCosts(4, 5000), ToolCost{Name: "n", Defer: DeferNever, Tokens: 5000}), 10_000, false},
		// When always-deferred tools already bring the meta tools in, folding adds nothing.
		{"always tool removes the meta overhead", append(autoCosts(5, 200), ToolCost{Name: "z", Defer: DeferAlways, Tokens: 10}), 1000, true},
		{"without the always tool the same pool stays", autoCosts(5, 200), 1000, false},
		{"empty pool", nil, 1000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldDefer(tt.costs, tt.window, meta); got != tt.want {
				t.Fatalf("ShouldDefer = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanDeferral(t *testing.T) {
	costs := append(autoCosts(5, 5000),
		ToolCost{Name: "always", Defer: DeferAlways, Tokens: 10},
		ToolCost{Name: "never", Defer: DeferNever, Tokens: 5000},
	)
	folded := func(window int) []string {
		var out []string
		for i, f := range PlanDeferral(costs, window, 450) {
			if f {
				out = append(out, costs[i].Name)
			}
		}
		return out
	}
	if got, want := folded(10_000), []string{"a", "b", "c", "d", "e", "always"}; !slices.Equal(got, want) {
		t.Fatalf("small window folds %v, want %v", got, want)
	}
	if got, want := folded(10_000_000), []string{"always"}; !slices.Equal(got, want) {
		t.Fatalf("huge window folds %v, want %v (always is always folded)", got, want)
	}
}

// TestMetaToolsTokensFromRealDefinitions: the overhead gate uses the real meta tool
// definitions and <DEFERRED_TOOLS> text, counted with the tokenizer, not a constant.
func TestMetaToolsTokensFromRealDefinitions(t *testing.T) {
	r := NewRegistry()
	var tc tokenCounter
	want := 0
	for _, d := range foldingMetaDefinitions() {
		want += tc.definitionTokens(d)
	}
	want += tc.count(deferredSection(nil))
	got := r.MetaToolsTokens()
	if got != want {
		t.Fatalf("MetaToolsTokens = %d, want %d", got, want)
	}
	if got < 150 || got > 800 {
		t.Fatalf("MetaToolsTokens = %d, outside the plausible ~500 range", got)
	}
	t.Logf("meta tools + <DEFERRED_TOOLS> cost %d tokens", got)
}

func TestTokenCounterIsARealTokenizer(t *testing.T) {
	var tc tokenCounter
	// o200k_base: "hello world" is two tokens; a byte estimate would say 3.
	if n := tc.count("hello world"); n != 2 {
		t.Fatalf("count(hello world) = %d, want 2", n)
	}
}

func TestDeferredSection(t *testing.T) {
	s := deferredSection([]deferredNamespace{{Namespace: "mcp:abc", Label: "GitHub", Count: 42}, {Namespace: "web", Count: 1}})
	for _, want := range []string{"<DEFERRED_TOOLS>", "- mcp:abc (GitHub): 42 tools", "- web: 1 tool\n", "tool_search", "tool_inspect", "tool_invoke", "</DEFERRED_TOOLS>"} {
		if !strings.Contains(s, want) {
			t.Errorf("section lacks %q:\n%s", want, s)
		}
	}
}

func TestCloseNames(t *testing.T) {
	cands := []string{"web_search", "web_fetch", "kb_search", "mcp__gitHub__createIssue_0123456789abcdef0123", "sandbox_bash"}
	tests := []struct {
		q    string
		want []string // best first
	}{
		{"web_serch", []string{"web_search", "web_fetch", "kb_search"}},
		{"WEB_SEARCH", []string{"web_search", "kb_search", "web_fetch"}},
		{"kb_serch", []string{"kb_search"}},
		{"mcp__gitHub__createIssue", []string{"mcp__gitHub__createIssue_0123456789abcdef0123"}},
		{"completely_else", []string{}},
	}
	for _, tt := range tests {
		if got := closeNames(tt.q, cands); !slices.Equal(got, tt.want) {
			t.Errorf("closeNames(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if levenshtein("kitten", "sitting") != 3 || levenshtein("", "abc") != 3 || levenshtein("abc", "abc") != 0 {
		t.Fatal("levenshtein is wrong")
	}
}
