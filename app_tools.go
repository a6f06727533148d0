package main

import (
	"encoding/base64"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
)

// ListTools is Settings → Tools: every registered tool, its namespace, flags, origin and
// whether the user turned it off.
func (a *App) ListTools() (tools.ToolsSnapshot, error) {
	return a.s.ToolPrefs.Snapshot(a.ctx, a.s.Tools)
}

// SetToolEnabled turns one tool on or off for every session.
func (a *App) SetToolEnabled(name string, enabled bool) error {
	return a.s.ToolPrefs.SetEnabled(a.ctx, name, enabled)
}

// ListToolsets is every capability's toolset as the window shows it: its name, the i18n
// key of its label, its icon, whether new chat and task sessions have it on, and whether
// it is in every session (the meta tools). The session settings' toggles, the tool cards'
// and the Tools panel's icons read it; the list is fixed for the life of the process.
func (a *App) ListToolsets() []capability.Toolset {
	return a.s.Capabilities.Toolsets()
}

// GetToolImage is one image a tool returned in a conversation, as a data: URL for its
// tool card: a thumbnail, or with full the image itself (the window loads nothing from
// elsewhere). file is the name the tool part carries (tools.ImageRef.File).
func (a *App) GetToolImage(sessionID, file string, full bool) (string, error) {
	mime, data, err := a.s.Pipeline.ToolImageData(sessionID, file, full)
	if err != nil {
		return "", err
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}
