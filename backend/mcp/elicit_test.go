package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askServer is an in-process server whose only tool asks the client for a name (with a
// default) and reports the capability it saw and the answer it got.
func askServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		caps := req.Session.InitializeParams().Capabilities
		advertised := caps != nil && caps.Elicitation != nil
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message: "Who are you?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"name":{"type":"string","default":"Ada"},"age":{"type":"integer","default":36}}}`),
		})
		out := map[string]any{"advertised": advertised}
		if err != nil {
			out["error"] = err.Error()
		} else {
			out["action"], out["content"] = res.Action, res.Content
		}
		b, _ := json.Marshal(out)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	return s
}

// TestElicitation: without Config.Elicit Cairn advertises no elicitation capability and
// a server's request is refused; with it, the request reaches the callback with the
// server's id, and fields the answer leaves out get the schema's defaults.
func TestElicitation(t *testing.T) {
	type asked struct {
		server, message string
	}
	tests := []struct {
		name        string
		elicit      ElicitFunc
		wantAdv     bool
		wantAction  string
		wantContent map[string]any
		wantErr     string
	}{
		{name: "not configured", wantErr: "does not support elicitation"},
		{
			name: "accept with defaults",
			elicit: func(context.Context, Elicitation) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
			},
			wantAdv: true, wantAction: "accept", wantContent: map[string]any{"name": "Grace", "age": float64(36)},
		},
		{
			name: "decline",
			elicit: func(context.Context, Elicitation) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			},
			wantAdv: true, wantAction: "decline",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen := make(chan asked, 1)
			var elicit ElicitFunc
			if tc.elicit != nil {
				elicit = func(ctx context.Context, e Elicitation) (*mcp.ElicitResult, error) {
					seen <- asked{e.ServerID, e.Params.Message}
					return tc.elicit(ctx, e)
				}
			}
			h := newHarness(t, cold, func(c *Config) { c.Elicit = elicit })
			if err := h.m.RegisterBuiltin(context.Background(), Builtin{ID: "asker", Name: "Asker", New: askServer}); err != nil {
				t.Fatal(err)
			}
			res, err := h.call("asker", "ask", `{}`, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Advertised bool           `json:"advertised"`
				Action     string         `json:"action"`
				Content    map[string]any `json:"content"`
				Error      string         `json:"error"`
			}
			if err := json.Unmarshal([]byte(res.Content), &got); err != nil {
				t.Fatalf("%v: %s", err, res.Content)
			}
			if got.Advertised != tc.wantAdv {
				t.Errorf("elicitation capability advertised = %v, want %v", got.Advertised, tc.wantAdv)
			}
			if tc.wantErr != "" {
				if !strings.Contains(got.Error, tc.wantErr) {
					t.Fatalf("server got error %q, want %q", got.Error, tc.wantErr)
				}
				return
			}
			if got.Error != "" || got.Action != tc.wantAction {
				t.Fatalf("server got %+v, want action %s", got, tc.wantAction)
			}
			if len(got.Content) != len(tc.wantContent) {
				t.Fatalf("content %v, want %v", got.Content, tc.wantContent)
			}
			for k, v := range tc.wantContent {
				if got.Content[k] != v {
					t.Errorf("content[%s] = %v, want %v", k, got.Content[k], v)
				}
			}
			if a := <-seen; a.server != "asker" || a.message != "Who are you?" {
				t.Errorf("callback got %+v", a)
			}
		})
	}
}
