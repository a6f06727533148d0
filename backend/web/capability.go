// Package web is Cairn's web search capability. Its tools are not built yet: a session can
// already enable the toolset and Settings keeps its keys, so the capability declares them.
package web

import "github.com/cairn-app/cairn/backend/capability"

// Name is the toolset and the namespace of its tools.
const Name = "web"

// Capability declares the toolset: its name, label and icon, and the search providers' keys
// Settings → Web search manages.
func Capability() capability.Capability {
	return capability.Capability{
		Name:    Name,
		Label:   "chat:tools.namespace.web",
		Icon:    "globe",
		Secrets: []string{"websearch.tavily", "websearch.bing", "websearch.brave", "websearch.bocha", "websearch.querit"},
	}
}
