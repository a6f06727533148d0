package main

import (
	"log/slog"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/buildinfo"
)

// StartupFailure is what the desktop window binds instead of App when the backend could not
// open (a database written by a newer Cairn, a data directory it cannot create). Someone who
// started Cairn from a menu has no terminal: the window shows the localized error, the data
// directory and a way out, instead of a process that ends without a word.
type StartupFailure struct {
	info  StartupFailureInfo
	log   *slog.Logger
	quit  func()
	shown sync.Once
}

// StartupFailureInfo is what the failure screen shows.
type StartupFailureInfo struct {
	Error   *apperr.Error `json:"error"`
	DataDir string        `json:"dataDir"`
	Version string        `json:"version"`
	// Language is the one the error went to stderr in: the window has no settings to read.
	Language string `json:"language"`
}

// NewStartupFailure describes err for the window, in language; quit closes the window (nil:
// no-op until the window is up).
func NewStartupFailure(err error, dataDir, language string, log *slog.Logger, quit func()) *StartupFailure {
	e := *apperr.From(err)
	// Its action (open a settings section) needs the backend this window does not have.
	e.Action = nil
	return &StartupFailure{
		info: StartupFailureInfo{Error: &e, DataDir: dataDir, Version: buildinfo.Get().Version, Language: language},
		log:  log,
		quit: quit,
	}
}

// Details is what went wrong, for the failure screen.
func (f *StartupFailure) Details() StartupFailureInfo { return f.info }

// Shown is called by the window once the failure screen is on it, in language ("start-up
// failure shown" in the log, which the desktop smoke test waits for).
func (f *StartupFailure) Shown(language string) {
	f.shown.Do(func() {
		f.log.Info("start-up failure shown", "code", f.info.Error.Code, "language", language)
	})
}

// Quit closes the window; the process then exits with status 1.
func (f *StartupFailure) Quit() {
	if f.quit != nil {
		f.quit()
	}
}
