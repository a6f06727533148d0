package service

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
	"github.com/tiktoken-go/tokenizer/codec"
)

// benchServer is one npm MCP server the prompt benchmark starts when it is installed in
// backend/mcp/testdata/npm: its package and the arguments it needs.
type benchServer struct {
	name, pkg string
	args      []string
	env       map[string]string // placeholders for the keys a server wants before it lists its tools
}

// benchServers are the servers of the desktop-client configuration the benchmark stands
// for; the ones not installed are left out (the table names the ones that ran).
var benchServers = []benchServer{
	{"everything", "@modelcontextprotocol/server-everything", []string{"stdio"}, nil},
	{"filesystem", "@modelcontextprotocol/server-filesystem", []string{"{dir}"}, nil},
	{"memory", "@modelcontextprotocol/server-memory", nil, nil},
	{"playwright", "@playwright/mcp", []string{"--headless"}, nil},
	{"chrome-devtools", "chrome-devtools-mcp", []string{"--headless", "--isolated"}, nil},
	{"puppeteer", "@modelcontextprotocol/server-puppeteer", nil, nil},
	{"context7", "@upstash/context7-mcp", nil, nil},
	{"tavily", "tavily-mcp", nil, map[string]string{"TAVILY_API_KEY": "tvly-bench"}},
	{"notion", "@notionhq/notion-mcp-server", nil, map[string]string{"NOTION_TOKEN": "ntn_bench"}},
	{"kubernetes", "mcp-server-kubernetes", nil, nil},
	{"firecrawl", "firecrawl-mcp", nil, map[string]string{"FIRECRAWL_API_KEY": "fc-bench"}},
	{"exa", "exa-mcp-server", nil, map[string]string{"EXA_API_KEY": "exa-bench"}},
	{"supabase", "@supabase/mcp-server-supabase", []string{"--read-only"}, map[string]string{"SUPABASE_ACCESS_TOKEN": "sbp_bench"}},
	{"sentry", "@sentry/mcp-server", nil, map[string]string{"SENTRY_ACCESS_TOKEN": "sentry-bench"}},
	{"brave-search", "@brave/brave-search-mcp-server", nil, map[string]string{"BRAVE_API_KEY": "brave-bench"}},
}

// entryPoint is an installed package's bin script ("" when it is not installed): in
// backend/mcp/testdata/npm, or in the directory CAIRN_BENCH_NPM names (bench/prompt.sh
// installs the other servers there).
func entryPoint(pkg string) string {
	for _, root := range []string{mcptest.Dir(), os.Getenv("CAIRN_BENCH_NPM")} {
		if root == "" {
			continue
		}
		if p := binOf(filepath.Join(root, "node_modules", pkg)); p != "" {
			return p
		}
	}
	return ""
}

func binOf(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var meta struct {
		Bin json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(b, &meta) != nil {
		return ""
	}
	var one string
	if json.Unmarshal(meta.Bin, &one) == nil && one != "" {
		return filepath.Join(dir, one)
	}
	// Several bins (chrome-devtools-mcp also ships a CLI): the one named like the package,
	// else the first by name that says mcp, else the first by name.
	var many map[string]string
	_ = json.Unmarshal(meta.Bin, &many)
	names := slices.Sorted(maps.Keys(many))
	if p, ok := many[filepath.Base(dir)]; ok {
		return filepath.Join(dir, p)
	}
	for _, n := range names {
		if strings.Contains(n, "mcp") {
			return filepath.Join(dir, many[n])
		}
	}
	if len(names) > 0 {
		return filepath.Join(dir, many[names[0]])
	}
	return ""
}

// startBenchServers saves and lists every installed server; it returns how many tools
// each brought.
func startBenchServers(b *testing.B, s *Services) map[string]int {
	ctx := context.Background()
	got := map[string]int{}
	for _, bs := range benchServers {
		entry := entryPoint(bs.pkg)
		if entry == "" {
			continue
		}
		args := []string{entry}
		for _, a := range bs.args {
			if a == "{dir}" {
				a = b.TempDir()
			}
			args = append(args, a)
		}
		var env []mcp.Var
		for k, v := range bs.env {
			env = append(env, mcp.Var{Name: k, Value: v})
		}
		v, err := s.MCP.Save(ctx, mcp.Server{Name: bs.name, Transport: mcp.TransportStdio, Command: mcptest.Node(b), Args: args, Env: env, Enabled: true})
		if err != nil {
			b.Fatal(err)
		}
		infos, err := s.MCP.RefreshTools(ctx, v.ID)
		if err != nil {
			b.Logf("%s did not start: %v", bs.name, err)
			continue
		}
		got[bs.name] = len(infos)
	}
	return got
}

// keepGatedInline re-registers every MCP tool the defaults ask about as never folded:
// the rule before approval-gated tools folded (they stayed inline), for the "before" row.
func keepGatedInline(b *testing.B, s *Services) {
	byNS := map[string][]tools.Entry{}
	for _, in := range s.Tools.List() {
		if in.Source != tools.SourceMCP {
			continue
		}
		e, _ := s.Tools.Lookup(in.Name)
		c := *e
		if c.Approval == tools.ApprovalAsk || (c.Approval == tools.ApprovalDefault && !c.ReadOnly) {
			c.Defer = tools.DeferNever
		}
		byNS[c.Namespace] = append(byNS[c.Namespace], c)
	}
	for ns, es := range byNS {
		if err := s.Tools.ReplaceNamespace(ns, es); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPromptCost is the prompt a chat request carries with every installed npm MCP
// server enabled (bench/prompt.sh prints it as a table): its bytes and o200k_base tokens,
// and its tool definitions' share, with nothing folded, with folding as it was (tools
// that need approval inline), with folding now, and with chat.foldAllTools. The window is
// 128k tokens, or the 32k assumed for an unknown model.
func BenchmarkPromptCost(b *testing.B) {
	mcptest.NeedNPM(b)
	s, err := Open(context.Background(), Options{DataDir: b.TempDir(), SecretsBackend: "file"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	servers := startBenchServers(b, s)
	total := 0
	for name, n := range servers {
		b.Logf("server %s: %d tools", name, n)
		total += n
	}
	srv := llmtest.Start(b)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	ctx := context.Background()
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000", Models: []llm.Model{
		{ID: "inline", SupportsTools: true, ContextWindow: 100_000_000}, {ID: "w128k", SupportsTools: true, ContextWindow: 128_000},
		{ID: "unknown", SupportsTools: true}}})
	if err != nil {
		b.Fatal(err)
	}
	tok := codec.NewO200kBase()
	measure := func(name, model string, foldAll bool) {
		if _, err := s.Settings.Set(ctx, "chat.foldAllTools", foldAll); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var raw []byte
			var body llmtest.ChatRequest
			for i := 0; i < b.N; i++ {
				sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: model, Toolsets: []string{"mcp"}})
				if err != nil {
					b.Fatal(err)
				}
				before := len(srv.Requests())
				if _, err := s.Chat.SendMessage(ctx, sess.ID, "hello"); err != nil {
					b.Fatal(err)
				}
				waitIdle(b, s, sess.ID)
				reqs := srv.Requests()
				raw, body = reqs[before].Raw, reqs[before].Body
			}
			toolsJSON, _ := json.Marshal(body.Tools)
			all, _ := tok.Count(string(raw))
			defs, _ := tok.Count(string(toolsJSON))
			b.ReportMetric(float64(len(raw)), "bytes/req")
			b.ReportMetric(float64(all), "tokens/req")
			b.ReportMetric(float64(defs), "tool-tokens")
			b.ReportMetric(float64(len(body.Tools)), "tools-sent")
			b.ReportMetric(float64(total), "tools-registered")
			b.ReportMetric(float64(len(servers)), "servers")
		})
	}
	measure("window=128k/nothing-folded", "inline", false)
	measure("window=128k/folding-now", "w128k", false)
	measure("window=32k/folding-now", "unknown", false)
	measure("window=32k/fold-all", "unknown", true)
	keepGatedInline(b, s)
	measure("window=128k/folding-before", "w128k", false)
	measure("window=32k/folding-before", "unknown", false)
}
