package main

import (
	"bytes"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/buildinfo"
	"github.com/cairn-app/cairn/backend/privfile"
	"github.com/cairn-app/cairn/backend/transfer"
)

// Your data, out and back (backend/transfer): conversation exports and imports. The
// window saves a File it gets with SaveBinaryFile (desktop) or as a download.

func (a *App) transfer() *transfer.Service {
	return transfer.New(a.s.Chat, a.s.Files, a.s.DataDir, "Cairn "+buildinfo.Get().Version)
}

// ExportSession writes one conversation as Markdown ("md", to read) or JSON ("json",
// every part, the file ImportConversations reads back).
func (a *App) ExportSession(id, format string, opt transfer.ExportOptions) (transfer.File, error) {
	return a.transfer().Export(a.ctx, id, format, opt)
}

// ExportAllSessions writes every conversation into a zip (conversations.json and one
// Markdown file each).
func (a *App) ExportAllSessions(opt transfer.ExportOptions) (transfer.File, error) {
	return a.transfer().ExportAll(a.ctx, opt)
}

// ImportConversations reads Cairn's JSON export, ChatGPT's conversations.json or a zip
// holding either, and stores every readable conversation at once; the report says what
// happened to each.
func (a *App) ImportConversations(name string, data []byte) (transfer.ImportReport, error) {
	return a.transfer().Import(a.ctx, name, data)
}

// CreateBackup writes a backup of the whole data directory for the window to save: a
// consistent database snapshot, the files, and the keys only with opt.WithKeys (then
// sealed with opt.Passphrase). Restoring needs no running Cairn: `cairn restore FILE`.
func (a *App) CreateBackup(opt transfer.BackupOptions) (transfer.File, error) {
	var buf bytes.Buffer
	if _, err := transfer.Backup(a.ctx, a.s.DB, a.s.DataDir, a.s.Secrets, "Cairn "+buildinfo.Get().Version, opt, &buf); err != nil {
		return transfer.File{}, err
	}
	name := "cairn-backup-" + time.Now().Format("2006-01-02") + ".zip"
	return transfer.File{Name: name, MIME: "application/zip", Data: buf.Bytes()}, nil
}

// SaveFile is SaveTextFile for bytes (a zip, a backup): the desktop's native save dialog,
// the file private to the user; "" when cancelled.
func (a *App) SaveFile(defaultName string, data []byte) (string, error) {
	if a.chooseSavePath == nil {
		return "", apperr.New(apperr.FileSaveFailed, "save %s: no file dialog here", defaultName).
			WithParam("path", defaultName).WithParam("message", "only the desktop window saves files; the browser downloads them")
	}
	path, err := a.chooseSavePath(defaultName)
	if err != nil {
		return "", apperr.Wrap(err, apperr.FileSaveFailed, "save dialog").WithParam("path", defaultName).WithParam("message", err.Error())
	}
	if path == "" {
		return "", nil
	}
	if err := privfile.Write(path, data); err != nil {
		return "", apperr.Wrap(err, apperr.FileSaveFailed, "save %s", path).WithParam("path", path).WithParam("message", errMessage(err))
	}
	return path, nil
}

// RestoreState says whether a restore waits for the next start.
type RestoreState struct {
	Pending bool `json:"pending"`
}

// StageRestore checks a backup (every file, the schema, the database) and stages it: the
// next start of Cairn swaps it in before it opens anything. Keys stay as they are (`cairn
// restore` restores them with the passphrase).
func (a *App) StageRestore(name string, data []byte) (transfer.Manifest, error) {
	return transfer.StageRestore(a.ctx, name, data, a.s.DataDir)
}

// GetRestoreState says whether a staged restore waits.
func (a *App) GetRestoreState() (RestoreState, error) {
	return RestoreState{Pending: transfer.HasPendingRestore(a.s.DataDir)}, nil
}

// CancelRestore drops a staged restore.
func (a *App) CancelRestore() error { return transfer.CancelPendingRestore(a.s.DataDir) }
