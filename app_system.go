package main

import (
	"errors"
	"os"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/doctor"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/settings"
)

// ReadyInfo is what a window learns when it starts.
type ReadyInfo struct {
	buildinfo.Info
	DataDir string `json:"dataDir"`
	Desktop bool   `json:"desktop"`
}

// Ready is called once by every window when its first screen is up.
func (a *App) Ready(window string) (ReadyInfo, error) {
	a.s.Log.Info("frontend ready", "window", window)
	a.s.FrontendReady()
	if a.onReady != nil {
		a.onReady()
	}
	return ReadyInfo{Info: buildinfo.Get(), DataDir: a.s.DataDir, Desktop: a.desktop}, nil
}

// Doctor reports whether this installation is usable (Settings → About).
func (a *App) Doctor() (doctor.Report, error) {
	return doctor.Run(a.ctx, a.s, a.desktop), nil
}

// BackendOwner is the process that owns the data directory (the one backend every window
// and terminal works through), as Settings → About shows it.
type BackendOwner struct {
	// Kind is "desktop" or "serve"; "" when no owner runs on this backend.
	Kind  string `json:"kind"`
	PID   int    `json:"pid"`
	Since int64  `json:"since"` // unix ms
	// Windows are the open windows (the desktop's and browser tabs), Clients the
	// terminals' event streams.
	Windows int `json:"windows"`
	Clients int `json:"clients"`
}

// GetBackendOwner says which process owns the data directory, its windows counted now.
func (a *App) GetBackendOwner() (BackendOwner, error) {
	in, ok := a.s.OwnerStatus()
	if !ok {
		return BackendOwner{}, nil
	}
	return BackendOwner{Kind: in.Kind, PID: in.PID, Since: in.Since.UnixMilli(), Windows: in.Windows, Clients: in.Clients}, nil
}

// GetSettings returns every setting with its spec, stamped with the topic seq.
func (a *App) GetSettings() (settings.Snapshot, error) { return a.s.Settings.Snapshot(a.ctx) }

// SetSetting validates and stores one setting; every window receives settings:changed.
func (a *App) SetSetting(key string, value any) (settings.Snapshot, error) {
	return a.s.Settings.Set(a.ctx, key, value)
}

// ListSecrets says which secrets are set (never their values) and where they are kept.
func (a *App) ListSecrets() (secrets.Snapshot, error) { return a.s.Secrets.Snapshot(a.ctx) }

// SetSecret stores one of the keys Settings → Web search lists (secrets.Known) in the
// keyring (or the fallback file); a provider's key goes with its provider.
func (a *App) SetSecret(name, value string) error { return a.s.Secrets.SetKnown(a.ctx, name, value) }

// DeleteSecret removes one of those keys.
func (a *App) DeleteSecret(name string) error { return a.s.Secrets.DeleteKnown(a.ctx, name) }

// WindowFocus is reported by every window when it gains or loses the focus (and again
// while it keeps it), so a waiting approval raises an OS notification only when nobody
// is looking.
func (a *App) WindowFocus(window string, focused bool) { a.s.Presence.Set(window, focused) }

// SaveTextFile lets the desktop window save an export (MCP servers, the audit log) where
// the user chooses, with a native dialog: the webview has no download UI of its own. It
// returns the path written, or "" when the user cancelled. The file is private to the
// user (0600): an export may carry secrets.
func (a *App) SaveTextFile(defaultName, content string) (string, error) {
	return a.SaveFile(defaultName, []byte(content))
}

// ChooseFolder asks for a folder with the desktop's native dialog (a knowledge base's
// synced folder, a task session's workspace): its path, "" when cancelled. `cairn serve`
// has none (no_folder_dialog): its browser may be on another machine, so the path is typed.
func (a *App) ChooseFolder(title string) (string, error) {
	if a.chooseFolder == nil {
		return "", apperr.New(apperr.NoFolderDialog, "no folder dialog here")
	}
	path, err := a.chooseFolder(title)
	if err != nil {
		return "", apperr.Wrap(err, apperr.NoFolderDialog, "folder dialog")
	}
	return path, nil
}

// errMessage is an error without Go's "open /path:" prefix, for a message that already
// names the path.
func errMessage(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
