package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// Many MCP descriptions (Firecrawl's among them) start with a newline and indentation:
// tool_search must show their first line with words, trimmed, not a blank.
func TestToolSearchSummaryFirstNonEmptyLine(t *testing.T) {
	tests := []struct{ name, desc, want string }{
		{"leading newline", "\nScrape a single page.\nMore detail.", ": Scrape a single page.\n"},
		{"indented blank lines", "  \n\t\n   Crawl a site  \n\nUsage: …", ": Crawl a site\n"},
		{"plain", "Map a site's links", ": Map a site's links\n"},
		{"crlf", "\r\n Extract data\r\nmore", ": Extract data\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tools.NewRegistry()
			e := toolstest.Echo(tools.MCPName("fc-1", "Firecrawl", "scrape"))
			e.Namespace, e.NamespaceLabel, e.Defer, e.Description = "mcp:fc-1", "Firecrawl", tools.DeferAlways, tt.desc
			mustRegister(t, r, e)
			p := tools.NewPipeline(r, tools.Options{DataDir: t.TempDir()})
			scope := toolstest.ChatScope("s1")
			scope.Model.ContextWindow = 128_000
			if _, err := p.Select(context.Background(), scope); err != nil {
				t.Fatal(err)
			}
			o := runOne(t, p, toolstest.Call("c", "tool_search", `{"namespace":"Firecrawl"}`, scope))
			if !strings.Contains(o.Content, e.Name+tt.want) {
				t.Fatalf("summary of %q: want %q after the name in:\n%s", tt.desc, tt.want, o.Content)
			}
		})
	}
}
