package service

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

// TestBrowserServers runs Playwright's and Chrome DevTools' MCP servers from npm against
// the system's Chromium: their tools are listed and registered, the model navigates to a
// loopback page, reads its snapshot and takes a screenshot, and the screenshot reaches
// the vision model's next request as an image part. The page's one off-site request goes
// to the refusing proxy: the browser reaches nothing but loopback.
func TestBrowserServers(t *testing.T) {
	mcptest.NeedNPM(t)
	var runs atomic.Int32
	s := open(t, t.TempDir(), &runs)
	defer s.Close()
	ctx := context.Background()
	llmSrv := llmtest.Start(t)
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: llmSrv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "seeing", SupportsTools: true, Vision: true, ContextWindow: 1 << 20}}})
	if err != nil {
		t.Fatal(err)
	}
	page := mcptest.ServePage(t)
	for _, b := range mcptest.Browsers() {
		t.Run(b.Name, func(t *testing.T) {
			proxy := mcptest.StartProxy(t)
			start := time.Now()
			view, err := s.MCP.Save(ctx, mcp.Server{Name: b.Name, Transport: mcp.TransportStdio, Enabled: true,
				Command: mcptest.Node(t), Args: b.Args(t, proxy.Addr, t.TempDir())})
			if err != nil {
				t.Fatal(err)
			}
			wire := registered(t, s, view.ID, b.Navigate, b.Snapshot, b.Screenshot)
			for _, tool := range []string{b.Navigate, b.Snapshot, b.Screenshot} {
				if _, err := s.MCP.SetToolApproval(ctx, view.ID, tool, mcp.ApprovalAllow); err != nil {
					t.Fatal(err)
				}
			}
			sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "seeing", Toolsets: []string{"mcp"}})
			if err != nil {
				t.Fatal(err)
			}
			before := len(llmSrv.Requests())
			llmSrv.Enqueue(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "nav", Name: wire[b.Navigate], Arguments: b.NavArgs(page)}}},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "snap", Name: wire[b.Snapshot], Arguments: `{}`}}},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "shot", Name: wire[b.Screenshot], Arguments: b.ShotArgs}}},
				llmtest.Reply{Text: "A red hello."})
			if _, err := s.Chat.SendMessage(ctx, sess.ID, "look at the page"); err != nil {
				t.Fatal(err)
			}
			snap := waitIdleFor(t, s, sess.ID, 60*time.Second)
			if c := toolContent(t, snap, "snap"); !strings.Contains(c, mcptest.PageTitle) {
				t.Fatalf("the snapshot does not show the page: %q", c)
			}
			ref := savedImage(t, snap)
			reqs := llmSrv.Requests()
			if len(reqs) != before+4 {
				t.Fatalf("%d requests", len(reqs)-before)
			}
			checkImageRequest(t, fromLastTool(reqs[before+3].Body), ref, true)
			if !proxy.Asked(mcptest.OffsiteHost) {
				t.Fatalf("the off-site request did not go to the proxy (asked for %v)", proxy.Hosts())
			}
			t.Logf("%s: listed, navigated, snapshot and screenshot in %s", b.Name, time.Since(start).Round(time.Millisecond))
			if _, err := s.MCP.SetEnabled(ctx, view.ID, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// registered refreshes the server's tools and returns the wire names of those wanted,
// each of the server's tools found in the process-wide registry.
func registered(t *testing.T, s *Services, id string, want ...string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	infos, err := s.MCP.RefreshTools(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	wire := map[string]string{}
	names := make([]string, 0, len(infos))
	for _, ti := range infos {
		names = append(names, ti.Name)
		if slices.Contains(want, ti.Name) {
			wire[ti.Name] = ti.WireName
		}
		if _, ok := s.Tools.Lookup(ti.WireName); !ok {
			t.Fatalf("%s (%s) is not in the registry", ti.Name, ti.WireName)
		}
	}
	if len(wire) != len(want) {
		t.Fatalf("want %v among %v", want, names)
	}
	return wire
}

func waitIdleFor(t *testing.T, s *Services, sessionID string, d time.Duration) chat.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := s.Chat.Wait(ctx, sessionID); err != nil {
		t.Fatal(err)
	}
	snap, err := s.Chat.GetSession(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// toolContent is what the model read of one call, failing the test on a tool error.
func toolContent(t *testing.T, snap chat.Snapshot, callID string) string {
	t.Helper()
	for _, m := range snap.Messages {
		for _, p := range m.Parts {
			if p.Tool == nil || p.Tool.CallID != callID {
				continue
			}
			if p.Tool.Error != nil {
				b, _ := json.Marshal(p.Tool.Error)
				t.Fatalf("call %s failed: %s", callID, b)
			}
			if p.Type == chat.PartToolResult {
				return p.Tool.Content
			}
		}
	}
	t.Fatalf("no result of call %s", callID)
	return ""
}

// fromLastTool is the request from its last tool message on: the screenshot's, which
// checkImageRequest reads with the image part that must follow it.
func fromLastTool(body llmtest.ChatRequest) llmtest.ChatRequest {
	for i := len(body.Messages) - 1; i >= 0; i-- {
		if body.Messages[i].Role == "tool" {
			body.Messages = body.Messages[i:]
			break
		}
	}
	return body
}
