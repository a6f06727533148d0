// Package location is Cairn's location capability. Its tools are not built yet: a session can
// already enable the toolset and Settings keeps its keys, so the capability declares them.
package location

import "github.com/cairn-app/cairn/backend/capability"

// Name is the toolset and the namespace of its tools.
const Name = "location"

// Capability declares the toolset: its name, label and icon, and the map providers' keys.
func Capability() capability.Capability {
	return capability.Capability{
		Name:    Name,
		Label:   "chat:tools.namespace.location",
		Icon:    "pin",
		Secrets: []string{"maps.amap", "maps.google"},
	}
}
