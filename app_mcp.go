package main

import (
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/logring"
)

// MCP facade (MCP-1..4): servers, their tools, logs, import and export. Changes are
// broadcast on topic "mcp" (mcp:server, mcp:server-removed, mcp:log).

// ListMCPServers returns every server with its status and cached tools, stamped with the
// topic seq. It never connects.
func (a *App) ListMCPServers() (mcp.Snapshot, error) { return a.s.MCP.Servers(a.ctx) }

// SaveMCPServer adds (empty id) or edits a server; secret env and header values go to
// the keyring (an empty secret value keeps the stored one).
func (a *App) SaveMCPServer(in mcp.Server) (mcp.ServerView, error) { return a.s.MCP.Save(a.ctx, in) }

// DeleteMCPServer stops a server and forgets it, its secrets and its tools.
func (a *App) DeleteMCPServer(id string) error { return a.s.MCP.Delete(a.ctx, id) }

// SetMCPServerEnabled turns a server on (it connects and its tools appear) or off.
func (a *App) SetMCPServerEnabled(id string, enabled bool) (mcp.ServerView, error) {
	return a.s.MCP.SetEnabled(a.ctx, id, enabled)
}

// SetMCPToolEnabled offers or withholds one tool of a server to the model.
func (a *App) SetMCPToolEnabled(id, tool string, enabled bool) (mcp.ServerView, error) {
	return a.s.MCP.SetToolEnabled(a.ctx, id, tool, enabled)
}

// SetMCPToolApproval sets whether one tool asks before running: "ask", "allow" or ""
// (default: ask unless the server marks it read-only).
func (a *App) SetMCPToolApproval(id, tool string, approval mcp.Approval) (mcp.ServerView, error) {
	return a.s.MCP.SetToolApproval(a.ctx, id, tool, approval)
}

// RefreshMCPServer re-reads a server's tool list now.
func (a *App) RefreshMCPServer(id string) (mcp.ServerView, error) { return a.s.MCP.Refresh(a.ctx, id) }

// RestartMCPServer stops and starts a server again (its whole process group).
func (a *App) RestartMCPServer(id string) (mcp.ServerView, error) { return a.s.MCP.Restart(a.ctx, id) }

// TestMCPServer tries a (possibly unsaved) configuration: connect, list tools, disconnect.
func (a *App) TestMCPServer(in mcp.Server) (mcp.TestReport, error) { return a.s.MCP.Test(a.ctx, in) }

// GetMCPLogs returns a server's recent log lines (stderr and Cairn's notes).
func (a *App) GetMCPLogs(id string) ([]logring.Line, error) { return a.s.MCP.Logs(id, 0) }

// GetMCPServerEnvironment names the environment variables a stdio server starts with
// (Cairn's default set, and what its configuration sets), never their values.
func (a *App) GetMCPServerEnvironment(id string) ([]mcp.EnvVar, error) {
	return a.s.MCP.Environment(a.ctx, id)
}

// ImportMCPServers imports pasted or loaded `mcpServers` JSON and reports per entry.
func (a *App) ImportMCPServers(json string) (mcp.ImportReport, error) {
	return a.s.MCP.Import(a.ctx, []byte(json))
}

// ExportMCPServers returns the servers as `mcpServers` JSON, secret values left out.
func (a *App) ExportMCPServers() (mcp.Export, error) { return a.s.MCP.Export(a.ctx, false) }

// AuthorizeMCPServer starts the OAuth sign-in of a remote server that needs one and
// returns the authorization page. A desktop build opens it in the system browser itself
// (opened: true); otherwise the window opens authUrl. The browser comes back to a
// loopback listener; the tokens go to the keyring, the server reconnects and its status
// arrives on topic mcp.
func (a *App) AuthorizeMCPServer(id string) (mcp.SignInStart, error) {
	return a.s.MCP.SignIn(a.ctx, id, a.desktop)
}

// CancelMCPAuthorization stops a sign-in that waits for the browser.
func (a *App) CancelMCPAuthorization(id string) (mcp.ServerView, error) {
	return a.s.MCP.CancelSignIn(a.ctx, id)
}

// SignOutMCPServer deletes a remote server's OAuth tokens; it needs a new sign-in.
func (a *App) SignOutMCPServer(id string) (mcp.ServerView, error) { return a.s.MCP.SignOut(a.ctx, id) }
