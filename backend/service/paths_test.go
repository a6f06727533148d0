package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/permission"
	"golang.org/x/text/unicode/norm"
)

// TestPathDenyHoldsForRelativeAndNFDPathsOfARealServer: the real server-filesystem reads
// a relative path in its directory (named by its arguments, or offered as a root); a
// deny rule on <ws>/protected/** and on a folder with a non-ASCII name stops the write
// however the model spells the path, even with the tool always allowed, while a write
// elsewhere runs.
func TestPathDenyHoldsForRelativeAndNFDPathsOfARealServer(t *testing.T) {
	mcptest.NeedNPM(t)
	nfc, nfd := norm.NFC.String("café"), norm.NFD.String("café")
	cases := []struct {
		name  string
		setup func(ws string) mcp.Server
	}{
		{"directory in the arguments", func(ws string) mcp.Server {
			return mcp.Server{Args: []string{mcptest.Filesystem(), ws}}
		}},
		{"directory offered as a root", func(ws string) mcp.Server {
			return mcp.Server{Args: []string{mcptest.Filesystem()}, Roots: []string{ws}, Cwd: t.TempDir()}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			for _, d := range []string{"protected", nfc} {
				if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, d, "keep.txt"), []byte("original"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			srv := llmtest.Start(t)
			var runs atomic.Int32
			s := open(t, t.TempDir(), &runs)
			defer s.Close()
			ctx := context.Background()

			cfg := tc.setup(ws)
			cfg.Name, cfg.Transport, cfg.Command, cfg.Enabled = "files", mcp.TransportStdio, mcptest.Node(t), true
			view, err := s.MCP.Save(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			infos, err := s.MCP.RefreshTools(ctx, view.ID)
			if err != nil {
				t.Fatal(err)
			}
			write := ""
			for _, ti := range infos {
				if ti.Name == "write_file" {
					write = ti.WireName
				}
			}
			if write == "" {
				t.Fatalf("no write_file among %+v", infos)
			}
			for _, r := range []permission.Rule{
				{Behavior: permission.Allow, Tool: write}, // the user always allows the tool
				{Behavior: permission.Deny, Path: filepath.Join(ws, "protected", "**")},
				{Behavior: permission.Deny, Path: filepath.Join(ws, nfc, "**")},
			} {
				if _, err := s.Approval.SaveRule(ctx, r); err != nil {
					t.Fatal(err)
				}
			}

			sess := mcpSession(t, s, srv)
			call := func(id, path string) llmtest.ToolCall {
				return llmtest.ToolCall{ID: id, Name: write, Arguments: `{"path":"` + path + `","content":"pwned"}`}
			}
			srv.Enqueue(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{
					call("rel", "protected/keep.txt"),
					call("dots", "free/../protected/keep.txt"),
					call("nfd", nfd+"/keep.txt"),
					call("ok", "free.txt"),
				}},
				llmtest.Reply{Text: "Done."},
			)
			if _, err := s.Chat.SendMessage(ctx, sess.ID, "write"); err != nil {
				t.Fatal(err)
			}
			snap := waitIdle(t, s, sess.ID)
			for _, d := range []string{"protected", nfc} {
				if b, _ := os.ReadFile(filepath.Join(ws, d, "keep.txt")); string(b) != "original" {
					t.Errorf("%s/keep.txt was overwritten: %q", d, b)
				}
			}
			if b, err := os.ReadFile(filepath.Join(ws, "free.txt")); err != nil || string(b) != "pwned" {
				t.Fatalf("the allowed write did not reach the workspace: %q, %v", b, err)
			}
			ends := map[string]chat.Part{}
			for _, m := range snap.Messages {
				for _, p := range m.Parts {
					if p.Tool != nil && (p.Type == chat.PartToolError || p.Type == chat.PartToolResult) {
						ends[p.Tool.CallID] = p
					}
				}
			}
			content := func(p chat.Part) string {
				if p.Tool == nil {
					return "(no end)"
				}
				return p.Tool.Content
			}
			for _, id := range []string{"rel", "dots", "nfd"} {
				if p := ends[id]; p.Type != chat.PartToolError || !strings.Contains(content(p), "denies") {
					t.Errorf("call %s: %s %q", id, p.Type, content(p))
				}
			}
			if p := ends["ok"]; p.Type != chat.PartToolResult {
				t.Errorf("call ok: %s %q", p.Type, content(p))
			}
		})
	}
}

// mcpSession adds a provider on the fake model server and a session with the MCP
// toolset.
func mcpSession(t *testing.T, s *Services, srv *llmtest.Server) chat.Session {
	t.Helper()
	ctx := context.Background()
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m", SupportsTools: true, ContextWindow: 32000}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "m", Toolsets: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}
