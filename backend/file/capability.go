// Package file is Cairn's files capability. Its tools are not built yet: a session can
// already enable the toolset, so the capability declares it.
package file

import "github.com/cairn-app/cairn/backend/capability"

// Name is the toolset and the namespace of its tools.
const Name = "file"

// Capability declares the toolset: its name, label and icon.
func Capability() capability.Capability {
	return capability.Capability{
		Name:  Name,
		Label: "chat:tools.namespace.file",
		Icon:  "file",
	}
}
