package main

import (
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
	return ReadyInfo{Info: buildinfo.Get(), DataDir: a.s.DataDir, Desktop: a.desktop}, nil
}

// Doctor reports whether this installation is usable (Settings → About).
func (a *App) Doctor() (doctor.Report, error) {
	return doctor.Run(a.ctx, a.s, a.desktop), nil
}

// GetSettings returns every setting with its spec, stamped with the topic seq.
func (a *App) GetSettings() (settings.Snapshot, error) { return a.s.Settings.Snapshot(a.ctx) }

// SetSetting validates and stores one setting; every window receives settings:changed.
func (a *App) SetSetting(key string, value any) (settings.Snapshot, error) {
	return a.s.Settings.Set(a.ctx, key, value)
}

// ListSecrets says which secrets are set (never their values) and where they are kept.
func (a *App) ListSecrets() (secrets.Snapshot, error) { return a.s.Secrets.Snapshot(a.ctx) }

// SetSecret stores a secret in the keyring (or the fallback file).
func (a *App) SetSecret(name, value string) error { return a.s.Secrets.Set(a.ctx, name, value) }

// DeleteSecret removes a secret.
func (a *App) DeleteSecret(name string) error { return a.s.Secrets.Delete(a.ctx, name) }

// WindowFocus is reported by every window when it gains or loses the focus (and again
// while it keeps it), so a waiting approval raises an OS notification only when nobody
// is looking.
func (a *App) WindowFocus(window string, focused bool) { a.s.Presence.Set(window, focused) }
