package service

import (
	"context"
	"encoding/json"
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
)

// TestFoldedWriteAsksThroughToolInvoke: with a window small enough that server-filesystem's
// tools fold, its write_file (asked about by default) is not in the request; the model
// reaches it through tool_inspect and tool_invoke, and the call waits for the same
// approval a direct call gets: allowed it writes, denied it does not.
func TestFoldedWriteAsksThroughToolInvoke(t *testing.T) {
	mcptest.NeedNPM(t)
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	view, err := s.MCP.Save(ctx, mcp.Server{Name: "files", Transport: mcp.TransportStdio, Command: mcptest.Node(t),
		Args: []string{mcptest.Filesystem(), ws}, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.MCP.RefreshTools(ctx, view.ID); err != nil {
		t.Fatal(err)
	}
	write := tools.MCPName(view.ID, "files", "write_file")
	srv := llmtest.Start(t)
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "small", SupportsTools: true, ContextWindow: 16000}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, choice := range []string{"allow_once", "deny"} {
		t.Run(choice, func(t *testing.T) {
			sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "small", Toolsets: []string{"mcp"}})
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(ws, choice+".txt")
			inspect, _ := json.Marshal(map[string]any{"name": write})
			invoke, _ := json.Marshal(map[string]any{"name": write, "arguments": map[string]any{"path": file, "content": "written"}})
			before := len(srv.Requests())
			srv.Enqueue(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "i1", Name: "tool_inspect", Arguments: string(inspect)}}},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "tool_invoke", Arguments: string(invoke)}}},
				llmtest.Reply{Text: "Done."})
			if _, err := s.Chat.SendMessage(ctx, sess.ID, "write it"); err != nil {
				t.Fatal(err)
			}
			req := waitPending(t, s, sess.ID)
			if req.Tool != write || req.Server != "files" || req.Title != "write_file" || req.CallID != "w1" || req.AskReasonCode == "" ||
				!slices.Contains(req.Touches.Paths, file) {
				t.Fatalf("request %+v", req)
			}
			if _, err := s.Approval.Decide(ctx, req.ID, choice, "", "test"); err != nil {
				t.Fatal(err)
			}
			waitIdle(t, s, sess.ID)
			reqs := srv.Requests()[before:]
			if names := reqs[0].Body.ToolNames(); slices.Contains(names, write) || !slices.Contains(names, "tool_invoke") {
				t.Fatalf("first request's tools %v: write_file must be folded", names)
			}
			b, err := os.ReadFile(file)
			result := reqs[2].Body.LastMessage().Content
			switch choice {
			case "allow_once":
				if err != nil || string(b) != "written" || strings.Contains(result, "denied") {
					t.Fatalf("allowed: file %q (%v), model read %q", b, err, result)
				}
			default:
				if err == nil || !strings.Contains(strings.ToLower(result), "denied") {
					t.Fatalf("denied: file %q (%v), model read %q", b, err, result)
				}
			}
		})
	}
}
