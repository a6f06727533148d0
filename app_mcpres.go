package main

import (
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/mcp"
)

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

// AttachMCPResource reads a server's resource into the attachment store for the next
// message (the composer's resource menu); the answer goes in SendMessage's attachments
// with its source, like an uploaded file.
func (a *App) AttachMCPResource(id, uri, name string) (chat.Attachment, error) {
	return a.s.AttachMCPResource(a.ctx, id, uri, name)
}
