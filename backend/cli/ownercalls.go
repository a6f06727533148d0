package cli

import (
	"context"

	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/server"
	"github.com/cairn-app/cairn/backend/service"
)

// ownerCalls are the calls only commands make through the owner, never a window: what
// `cairn mcp` does that Settings has no button for. The owner serves them on its control
// socket under /control/api/ with the same reflection dispatch as the facade.
type ownerCalls struct {
	ctx context.Context
	s   *service.Services
}

// perCall runs every call on a copy whose context is the request's: a command that ends
// (Ctrl-C) ends what it waits for in the owner, as a closed tab does in serve.
func (o *ownerCalls) perCall() server.PerCall {
	return server.PerCall{Bound: o, For: func(ctx context.Context) any {
		c := *o
		c.ctx = ctx
		return &c
	}}
}

// MCPSignIn starts the OAuth sign-in of a remote server in the owner: its loopback
// listener takes the browser's answer, and its connection uses the tokens at once. The
// terminal opens the page itself (it knows its own display).
func (o *ownerCalls) MCPSignIn(id string) (mcp.SignInStart, error) {
	return o.s.MCP.SignIn(o.ctx, id, false)
}

// MCPWaitSignIn waits until the server's sign-in ends (or the command goes).
func (o *ownerCalls) MCPWaitSignIn(id string) error { return o.s.MCP.WaitSignIn(o.ctx, id) }

// MCPCancelSignIn stops a sign-in that waits for the browser.
func (o *ownerCalls) MCPCancelSignIn(id string) (mcp.ServerView, error) {
	return o.s.MCP.CancelSignIn(o.ctx, id)
}

// MCPResolve finds a server by id or name.
func (o *ownerCalls) MCPResolve(name string) (string, error) { return o.s.MCP.Resolve(name) }

// MCPView is one server as Settings shows it.
func (o *ownerCalls) MCPView(id string) (mcp.ServerView, error) { return o.s.MCP.View(o.ctx, id) }

// MCPRefreshTools connects and re-reads a server's tools.
func (o *ownerCalls) MCPRefreshTools(id string) ([]mcp.ToolInfo, error) {
	return o.s.MCP.RefreshTools(o.ctx, id)
}

// MCPImport imports mcpServers JSON.
func (o *ownerCalls) MCPImport(data []byte) (mcp.ImportReport, error) {
	return o.s.MCP.Import(o.ctx, data)
}

// MCPExport exports the servers, with their secrets when asked (the socket is this
// user's only, as the terminal a local export prints to).
func (o *ownerCalls) MCPExport(includeSecrets bool) (mcp.Export, error) {
	return o.s.MCP.Export(o.ctx, includeSecrets)
}

// MCPTest connects to a server, lists its tools and disconnects.
func (o *ownerCalls) MCPTest(in mcp.Server) (mcp.TestReport, error) { return o.s.MCP.Test(o.ctx, in) }

// MCPEnvironment names the variables a stdio server gets.
func (o *ownerCalls) MCPEnvironment(id string) ([]mcp.EnvVar, error) {
	return o.s.MCP.Environment(o.ctx, id)
}

// MCPSetTrustReadOnlyHints sets whether a server's read-only marks are trusted.
func (o *ownerCalls) MCPSetTrustReadOnlyHints(id string, on bool) (mcp.ServerView, error) {
	return o.s.MCP.SetTrustReadOnlyHints(o.ctx, id, on)
}

// MCPSetEnabled turns a server on or off.
func (o *ownerCalls) MCPSetEnabled(id string, on bool) (mcp.ServerView, error) {
	return o.s.MCP.SetEnabled(o.ctx, id, on)
}

// MCPDelete removes a server.
func (o *ownerCalls) MCPDelete(id string) error { return o.s.MCP.Delete(o.ctx, id) }

// MCPSignOut deletes a remote server's sign-in tokens.
func (o *ownerCalls) MCPSignOut(id string) (mcp.ServerView, error) {
	return o.s.MCP.SignOut(o.ctx, id)
}

// MCPServers lists the configured servers.
func (o *ownerCalls) MCPServers() (mcp.Snapshot, error) { return o.s.MCP.Servers(o.ctx) }
