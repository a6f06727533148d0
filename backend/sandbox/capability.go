// Package sandbox is Cairn's sandbox capability. Its tools are not built yet: a session can
// already enable the toolset, so the capability declares it.
package sandbox

import "github.com/cairn-app/cairn/backend/capability"

// Name is the toolset and the namespace of its tools.
const Name = "sandbox"

// Capability declares the toolset: its name, label and icon, that task sessions have it on.
func Capability() capability.Capability {
	return capability.Capability{
		Name:     Name,
		Label:    "chat:tools.namespace.sandbox",
		Icon:     "terminal",
		On:       capability.Sessions{Task: true},
		Commands: Commands(),
	}
}
