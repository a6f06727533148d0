package main

import "github.com/cairn-app/cairn/backend/mcp"

// MCP resources and prompts (read live from the server; topic "mcp" carries
// mcp:resources-changed and mcp:prompts-changed when a server announces a new list).

// ListMCPResources lists a server's resources and resource templates (connecting it).
func (a *App) ListMCPResources(id string) (mcp.ResourceList, error) {
	return a.s.MCP.Resources(a.ctx, id)
}

// ReadMCPResource reads one resource of a server by URI (the tool card's resource links).
func (a *App) ReadMCPResource(id, uri string) ([]mcp.ResourceContent, error) {
	return a.s.MCP.ReadResource(a.ctx, id, uri)
}

// ListMCPPrompts lists a server's prompts with their arguments (the composer's / menu).
func (a *App) ListMCPPrompts(id string) ([]mcp.PromptInfo, error) { return a.s.MCP.Prompts(a.ctx, id) }

// GetMCPPrompt fills a prompt with its arguments and returns its messages.
func (a *App) GetMCPPrompt(id, name string, args map[string]string) (mcp.PromptResult, error) {
	return a.s.MCP.GetPrompt(a.ctx, id, name, args)
}
