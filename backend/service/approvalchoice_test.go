package service

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestMCPApprovalChoiceReachesTheVerdict goes from the choice stored for a tool of a real
// server (server-everything) to approval.Check's verdict, for each of the three choices on
// a tool the server marks read-only and on one it does not: "never ask" lets a tool that
// can change things run unasked (it asked anyway before), "ask" asks even for a read-only
// tool, and the default asks unless the tool is read-only.
func TestMCPApprovalChoiceReachesTheVerdict(t *testing.T) {
	var runs atomic.Int32
	s, view := withEverything(t, &runs)
	ctx := context.Background()
	infos, err := s.MCP.RefreshTools(ctx, view.ID)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.ToolInfo{}
	for _, ti := range infos {
		byName[ti.Name] = ti
	}
	// echo is marked read-only; toggle-simulated-logging is not (nor destructive).
	if toggle := byName["toggle-simulated-logging"]; !byName["echo"].ReadOnly || toggle.ReadOnly || toggle.Destructive {
		t.Fatalf("server-everything's hints changed: echo %+v, toggle %+v", byName["echo"].ReadOnly, toggle)
	}
	sess := mcpSession(t, s, llmtest.Start(t))
	tests := []struct {
		tool     string
		choice   mcp.Approval
		behavior tools.Behavior
		code     string // the verdict's reason code (a pending request's, when it asks)
	}{
		{"toggle-simulated-logging", mcp.ApprovalDefault, tools.BehaviorAsk, "can_change"},
		{"toggle-simulated-logging", mcp.ApprovalAsk, tools.BehaviorAsk, "needs_approval"},
		{"toggle-simulated-logging", mcp.ApprovalAllow, tools.BehaviorAllow, "tool_allowed"},
		{"echo", mcp.ApprovalDefault, tools.BehaviorAllow, "server_read_only"},
		{"echo", mcp.ApprovalAsk, tools.BehaviorAsk, "needs_approval"},
		{"echo", mcp.ApprovalAllow, tools.BehaviorAllow, "tool_allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+string(tt.choice), func(t *testing.T) {
			if _, err := s.MCP.SetToolApproval(ctx, view.ID, tt.tool, tt.choice); err != nil {
				t.Fatal(err)
			}
			e, ok := s.Tools.Lookup(byName[tt.tool].WireName)
			if !ok || e.Approval != tt.choice {
				t.Fatalf("registry entry %+v (found %v), want approval %q", e, ok, tt.choice)
			}
			req := tools.PermissionRequest{Entry: e, Args: json.RawMessage(`{}`),
				Call: tools.Call{ID: "call-" + tt.tool + string(tt.choice), Name: e.Name, SessionID: sess.ID}}
			type answer struct {
				d   tools.Decision
				err error
			}
			done := make(chan answer, 1)
			go func() {
				d, err := s.Approval.Check(ctx, req)
				done <- answer{d, err}
			}()
			if tt.behavior == tools.BehaviorAsk {
				p := waitPending(t, s, sess.ID)
				if p.AskReasonCode != tt.code {
					t.Fatalf("asks because %q (%s), want %q", p.AskReasonCode, p.AskReason, tt.code)
				}
				if _, err := s.Approval.Decide(ctx, p.ID, "deny", "", "test"); err != nil {
					t.Fatal(err)
				}
				if a := <-done; a.err != nil || a.d.Behavior != tools.BehaviorDeny {
					t.Fatalf("after deny: %+v %v", a.d, a.err)
				}
				return
			}
			a := <-done
			if a.err != nil || a.d.Behavior != tools.BehaviorAllow {
				t.Fatalf("verdict %+v %v, want allow", a.d, a.err)
			}
			audit, err := s.Approval.ListAudit(ctx, approval.AuditQuery{SessionID: sess.ID, Tool: e.Name}, 1)
			if err != nil || len(audit.Entries) == 0 || audit.Entries[0].ReasonCode != tt.code {
				t.Fatalf("audit %+v %v, want reason %q", audit, err, tt.code)
			}
		})
	}
}
