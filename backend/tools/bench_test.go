package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// pool500 is a realistic large pool: 50 built-in tools over six toolsets (with
// instructions and Applies predicates) and 450 MCP tools from five servers.
func pool500(tb testing.TB) *tools.Pipeline {
	tb.Helper()
	r := tools.NewRegistry()
	toolsets := []string{"web", "kb", "file", "sandbox", "skill", "location"}
	var es []tools.Entry
	for i := 0; i < 50; i++ {
		ns := toolsets[i%len(toolsets)]
		e := builtin(ns, fmt.Sprintf("verb%02d", i))
		e.Instruction = "Instructions of the " + ns + " toolset: when and how to use its tools."
		e.Applies = tools.WhenToolset(ns)
		e.InputSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for"},"limit":{"type":"integer","minimum":1}},"required":["query"]}`)
		es = append(es, e)
	}
	if err := r.Register(es...); err != nil {
		tb.Fatal(err)
	}
	for s := 0; s < 5; s++ {
		id := fmt.Sprintf("server-%d", s)
		if err := r.ReplaceNamespace(tools.MCPNamespace(id), toolstest.MCPLike(id, fmt.Sprintf("Server %d", s), 90)); err != nil {
			tb.Fatal(err)
		}
	}
	if n := len(r.List()); n != 500 {
		tb.Fatalf("pool has %d tools", n)
	}
	return tools.NewPipeline(r, tools.Options{DataDir: tb.TempDir()})
}

// BenchmarkSelectActive500 is the per-request cost of assembling the tool set of 500
// registered tools (goal: < 1 ms): filter, de-duplicate, sort, instructions, deferral.
//   - folded: a 128k-token model; the MCP tools fold behind the meta tools.
//   - inline: a window so large nothing folds; all 500 definitions are returned.
//   - *+marshal: also encodes the request's "tools" array as JSON, as the provider
//     client will (encoding/json validates every schema again: ~5 µs per definition).
func BenchmarkSelectActive500(b *testing.B) {
	p := pool500(b)
	scope := toolstest.ChatScope("bench")
	scope.Toolsets = []string{"web", "kb", "file", "sandbox", "skill", "location", "mcp"}
	cases := []struct {
		name    string
		window  int
		marshal bool
	}{
		{"folded", 128_000, false},
		{"folded+marshal", 128_000, true},
		{"inline", 100_000_000, false},
		{"inline+marshal", 100_000_000, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := scope
			s.Model.ContextWindow = c.window
			ctx := context.Background()
			var sel tools.Selection
			b.ReportAllocs()
			for b.Loop() {
				sel, _ = p.Select(ctx, s)
				if c.marshal {
					if _, err := json.Marshal(sel.Tools); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(sel.Tools)), "tools")
			b.ReportMetric(float64(len(sel.Deferred)), "deferred")
		})
	}
}

// definitionTokens100 is the prompt cost of the tool definitions (plus the instructions,
// where folding adds <DEFERRED_TOOLS>) of 100 MCP-like tools, without and with folding.
func definitionTokens100(tb testing.TB) (unfolded, folded int) {
	tb.Helper()
	r := tools.NewRegistry()
	if err := r.ReplaceNamespace("mcp:gh", toolstest.MCPLike("gh", "GitHub", 100)); err != nil {
		tb.Fatal(err)
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		tb.Fatal(err)
	}
	cost := func(window int) (int, int) {
		s := toolstest.ChatScope("t")
		s.Model.ContextWindow = window
		sel := r.SelectActive(context.Background(), s)
		n, err := codec.Count(sel.Instructions)
		if err != nil {
			tb.Fatal(err)
		}
		return sel.ToolTokens + n, len(sel.Deferred)
	}
	unfolded, d := cost(100_000_000)
	if d != 0 {
		tb.Fatalf("huge window folded %d tools", d)
	}
	folded, d = cost(128_000)
	if d != 100 {
		tb.Fatalf("128k window folded %d tools, want 100", d)
	}
	return unfolded, folded
}

// TestFoldingSavesNinetyPercent: 100 MCP-like tools cost at least 90% fewer prompt
// tokens folded than inline.
func TestFoldingSavesNinetyPercent(t *testing.T) {
	unfolded, folded := definitionTokens100(t)
	saved := 100 * float64(unfolded-folded) / float64(unfolded)
	t.Logf("100 MCP-like tools: %d tokens inline, %d folded (%.1f%% fewer)", unfolded, folded, saved)
	if saved < 90 {
		t.Fatalf("folding saves %.1f%%, want ≥ 90%%", saved)
	}
}

// BenchmarkDefinitionTokens100 reports the same figures as metrics for bench/tools.sh.
func BenchmarkDefinitionTokens100(b *testing.B) {
	var unfolded, folded int
	for b.Loop() {
		unfolded, folded = definitionTokens100(b)
	}
	b.ReportMetric(float64(unfolded), "tokens-inline")
	b.ReportMetric(float64(folded), "tokens-folded")
	b.ReportMetric(100*float64(unfolded-folded)/float64(unfolded), "%-saved")
}

// BenchmarkRunBatchOverhead is the pipeline's own cost per call (lookup, argument
// validation against the schema, permission, execution with its deadline, result
// mapping) around a tool that answers at once, in a pool of 500: what Cairn adds to an
// MCP call before the transport.
func BenchmarkRunBatchOverhead(b *testing.B) {
	r := tools.NewRegistry()
	for s := 0; s < 5; s++ {
		id := fmt.Sprintf("server-%d", s)
		if err := r.ReplaceNamespace(tools.MCPNamespace(id), toolstest.MCPLike(id, fmt.Sprintf("Server %d", s), 100)); err != nil {
			b.Fatal(err)
		}
	}
	echo := tools.Entry{
		Name: tools.MCPName("srv", "Bench", "echo"), Namespace: tools.MCPNamespace("srv"), Description: "Echoes",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"]}`),
		ReadOnly:    true,
		Execute: func(_ context.Context, args json.RawMessage, _ func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: "Echo: ping"}, nil
		},
	}
	if err := r.ReplaceNamespace(tools.MCPNamespace("srv"), []tools.Entry{echo}); err != nil {
		b.Fatal(err)
	}
	p := tools.NewPipeline(r, tools.Options{DataDir: b.TempDir()})
	scope := tools.Scope{SessionID: "bench", Toolsets: []string{"mcp"}, Model: tools.ModelCaps{SupportsTools: true, ContextWindow: 128000}}
	call := []tools.Call{{ID: "c", Name: echo.Name, Arguments: `{"message":"ping"}`, SessionID: "bench", Scope: scope}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out := p.RunBatch(ctx, call, nil)
		if out[0].Status != tools.StatusResult || out[0].Content != "Echo: ping" {
			b.Fatalf("outcome %+v", out[0])
		}
	}
}
