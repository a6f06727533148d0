// Package kb is Cairn's knowledge bases capability. Its tools are not built yet: a session can
// already enable the toolset and Settings keeps its keys, so the capability declares them.
package kb

import "github.com/cairn-app/cairn/backend/capability"

// Name is the toolset and the namespace of its tools.
const Name = "kb"

// Capability declares the toolset: its name, label and icon, and the embeddings key.
func Capability() capability.Capability {
	return capability.Capability{
		Name:    Name,
		Label:   "chat:tools.namespace.kb",
		Icon:    "book",
		Secrets: []string{"embeddings.apiKey"},
	}
}
