package main

import "github.com/cairn-app/cairn/backend/tools"

// ListTools is Settings → Tools: every registered tool, its namespace, flags, origin and
// whether the user turned it off.
func (a *App) ListTools() (tools.ToolsSnapshot, error) {
	return a.s.ToolPrefs.Snapshot(a.ctx, a.s.Tools)
}

// SetToolEnabled turns one tool on or off for every session.
func (a *App) SetToolEnabled(name string, enabled bool) error {
	return a.s.ToolPrefs.SetEnabled(a.ctx, name, enabled)
}
