package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// EventWorkspace is published on the session's topic (events.SessionTopic) with the
// Workspace when a session's workspace changes, so every window's header follows.
const EventWorkspace = "sandbox:workspace"

// Workspace is a task session's workspace as the window shows it.
type Workspace struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	// Made is true when Cairn made the folder in its data directory (no folder was
	// picked).
	Made bool `json:"made"`
}

// Workspaces keeps each task session's workspace (table sandbox_workspaces). A session
// without a row works in a folder of its own, made on first use, beside the data
// directory (<data>-workspaces/<session>): the sandbox never mounts the data directory
// itself, nor anything inside it.
type Workspaces struct {
	db      *sql.DB
	dataDir string
}

// MadeRoot is the folder of the workspaces Cairn makes for the data directory dataDir.
func MadeRoot(dataDir string) string {
	d := filepath.Clean(dataDir)
	return filepath.Join(filepath.Dir(d), filepath.Base(d)+"-workspaces")
}

// NewWorkspaces keeps workspaces in db; new ones go beside dataDir (MadeRoot).
func NewWorkspaces(db *sql.DB, dataDir string) *Workspaces {
	return &Workspaces{db: db, dataDir: dataDir}
}

func (w *Workspaces) madePath(sessionID string) string {
	return filepath.Join(MadeRoot(w.dataDir), sessionID)
}

// Get is the session's workspace; one that was never set is the made folder's path
// (which may not exist yet). Only task sessions have one.
func (w *Workspaces) Get(ctx context.Context, sessionID string) (Workspace, error) {
	if err := w.taskSession(ctx, sessionID); err != nil {
		return Workspace{}, err
	}
	ws := Workspace{SessionID: sessionID}
	err := w.db.QueryRowContext(ctx, `SELECT path, made FROM sandbox_workspaces WHERE session_id = ?`, sessionID).Scan(&ws.Path, &ws.Made)
	if errors.Is(err, sql.ErrNoRows) {
		return Workspace{SessionID: sessionID, Path: w.madePath(sessionID), Made: true}, nil
	}
	if err != nil {
		return Workspace{}, apperr.Wrap(err, apperr.Internal, "read the workspace of session %s", sessionID)
	}
	return ws, nil
}

// Workspace is the session's workspace path, for the approval service (relative paths of
// the tools start there; acceptEdits lets edits inside it pass). A chat session has none.
func (w *Workspaces) Workspace(ctx context.Context, sessionID string) (string, error) {
	ws, err := w.Get(ctx, sessionID)
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Code == apperr.SandboxTaskOnly {
		return "", nil
	}
	return ws.Path, err
}

// Ensure is the session's workspace, its folder made when Cairn makes it and it is gone.
func (w *Workspaces) Ensure(ctx context.Context, sessionID string) (string, error) {
	ws, err := w.Get(ctx, sessionID)
	if err != nil {
		return "", err
	}
	if ws.Made {
		if err := os.MkdirAll(ws.Path, 0o700); err != nil {
			return "", apperr.Wrap(err, apperr.SandboxWorkspaceBad, "make the workspace").WithParam("path", ws.Path).WithParam("reason", err.Error())
		}
		return ws.Path, nil
	}
	if fi, err := os.Stat(ws.Path); err != nil || !fi.IsDir() {
		return "", apperr.New(apperr.SandboxWorkspaceBad, "the workspace %s is not a folder", ws.Path).
			WithParam("path", ws.Path).WithParam("reason", "it is not a folder any more")
	}
	return ws.Path, nil
}

// Set makes dir the session's workspace; "" gives it a new folder in the data directory.
// The folder must exist, and neither be nor hold nor lie inside the data directory, nor
// be the file system's root or the home folder itself.
func (w *Workspaces) Set(ctx context.Context, sessionID, dir string) (Workspace, error) {
	if err := w.taskSession(ctx, sessionID); err != nil {
		return Workspace{}, err
	}
	ws := Workspace{SessionID: sessionID, Path: w.madePath(sessionID), Made: true}
	if strings.TrimSpace(dir) != "" {
		p, err := w.check(dir)
		if err != nil {
			return Workspace{}, err
		}
		ws.Path, ws.Made = p, false
	}
	if _, err := w.db.ExecContext(ctx, `INSERT INTO sandbox_workspaces (session_id, path, made, set_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET path = excluded.path, made = excluded.made, set_at = excluded.set_at`,
		sessionID, ws.Path, ws.Made, time.Now().UnixMilli()); err != nil {
		return Workspace{}, apperr.Wrap(err, apperr.Internal, "store the workspace of session %s", sessionID)
	}
	return ws, nil
}

func (w *Workspaces) check(dir string) (string, error) {
	bad := func(reason string) error {
		return apperr.New(apperr.SandboxWorkspaceBad, "%s cannot be a workspace: %s", dir, reason).
			WithParam("path", dir).WithParam("reason", reason)
	}
	if !filepath.IsAbs(dir) {
		return "", bad("the path must be absolute")
	}
	p, err := filepath.EvalSymlinks(filepath.Clean(dir))
	if err != nil {
		return "", bad("it does not exist")
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		return "", bad("it is not a folder")
	}
	data, err := filepath.EvalSymlinks(w.dataDir)
	if err != nil {
		data = w.dataDir
	}
	home, _ := os.UserHomeDir()
	switch {
	case p == filepath.VolumeName(p)+string(filepath.Separator):
		return "", bad("it is the root of the file system")
	case home != "" && p == filepath.Clean(home):
		return "", bad("it is the home folder, which holds keys and credentials")
	case within(p, data) || within(data, p):
		return "", bad("it overlaps Cairn's data directory")
	}
	return p, nil
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (w *Workspaces) taskSession(ctx context.Context, sessionID string) error {
	var kind string
	err := w.db.QueryRowContext(ctx, `SELECT kind FROM sessions WHERE id = ?`, sessionID).Scan(&kind)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return apperr.New(apperr.NotFound, "no session %s", sessionID)
	case err != nil:
		return apperr.Wrap(err, apperr.Internal, "read session %s", sessionID)
	case kind != "task":
		return apperr.New(apperr.SandboxTaskOnly, "session %s is not a task session", sessionID)
	}
	return nil
}
