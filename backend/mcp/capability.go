package mcp

import "github.com/cairn-app/cairn/backend/capability"

// Capability declares the user's MCP servers as a toolset, on in every new session. Each
// server's tools are the namespace "mcp:<serverId>" under it; the Manager keeps them in
// the registry (AttachRegistry), since service builds it before chat so that runs stop
// before their servers do.
func Capability() capability.Capability {
	return capability.Capability{
		Name: "mcp", Label: "chat:tools.namespace.mcp", Icon: "plug", Section: "mcp",
		On: capability.Sessions{Chat: true, Task: true},
	}
}
