package service

import (
	"context"

	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// askUser answers MCP servers' elicitation requests through the broker: every window
// shows the form (and `cairn chat` asks on its terminal); the first answer goes back.
// Only form mode is offered; a URL-mode request (not advertised) is declined.
func askUser(b *elicit.Broker) mcp.ElicitFunc {
	return func(ctx context.Context, e mcp.Elicitation) (*sdk.ElicitResult, error) {
		if e.Params == nil || e.Params.Mode == "url" {
			return &sdk.ElicitResult{Action: string(elicit.Decline)}, nil
		}
		q := elicit.Question{ServerID: e.ServerID, Server: e.Server, Message: e.Params.Message, Schema: e.Params.RequestedSchema}
		if e.Call != nil {
			q.SessionID, q.CallID = e.Call.SessionID, e.Call.ID
		}
		a, err := b.Ask(ctx, q)
		if err != nil {
			return nil, err
		}
		return &sdk.ElicitResult{Action: string(a.Action), Content: a.Content}, nil
	}
}
