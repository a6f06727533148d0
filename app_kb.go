package main

import (
	"bytes"
	"encoding/base64"
	"slices"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/kb"
)

// kbs is the knowledge base service the kb capability started.
func (a *App) kbs() (*kb.Service, error) {
	if s, ok := a.s.Opened(kb.Name).(*kb.Service); ok && s != nil {
		return s, nil
	}
	return nil, apperr.New(apperr.Internal, "knowledge bases are not available")
}

// ListKBs lists the knowledge bases.
func (a *App) ListKBs() ([]kb.KB, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	return s.List(a.ctx)
}

// CreateKB makes a knowledge base.
func (a *App) CreateKB(in kb.CreateInput) (kb.KB, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.KB{}, err
	}
	return s.Create(a.ctx, in)
}

// RenameKB renames a knowledge base.
func (a *App) RenameKB(id, name string) (kb.KB, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.KB{}, err
	}
	return s.Rename(a.ctx, id, name)
}

// SetKBChunking changes chunk size and overlap; every file is indexed again.
func (a *App) SetKBChunking(id string, size, overlap int) (kb.KB, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.KB{}, err
	}
	return s.SetChunking(a.ctx, id, size, overlap)
}

// DeleteKB removes a knowledge base with its files.
func (a *App) DeleteKB(id string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.Delete(a.ctx, id)
}

// ListKBFiles lists a knowledge base's files with their ingest state.
func (a *App) ListKBFiles(id string) ([]kb.File, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	return s.Files(a.ctx, id)
}

// AddKBPaths adds files and folders chosen by the user.
func (a *App) AddKBPaths(id string, paths []string, opt kb.AddOptions) ([]kb.File, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	return s.AddPaths(a.ctx, id, paths, opt)
}

// AddKBText adds pasted text.
func (a *App) AddKBText(id, title, text string) (kb.File, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.File{}, err
	}
	return s.AddText(a.ctx, id, title, text)
}

// RemoveKBFile removes a file from its knowledge base.
func (a *App) RemoveKBFile(fileID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.RemoveFile(a.ctx, fileID)
}

// RetryKBFile indexes one file again (a failed one, or to re-index it).
func (a *App) RetryKBFile(fileID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.Retry(a.ctx, fileID)
}

// ReindexKB indexes every file of a knowledge base again.
func (a *App) ReindexKB(id string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.ReindexAll(a.ctx, id)
}

// PauseKB pauses a knowledge base's ingest (one file when fileID is set).
func (a *App) PauseKB(id, fileID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.Pause(a.ctx, id, fileID)
}

// ResumeKB resumes what PauseKB paused.
func (a *App) ResumeKB(id, fileID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.Resume(a.ctx, id, fileID)
}

// CancelKBFile stops a file's ingest; it can be retried.
func (a *App) CancelKBFile(fileID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.Cancel(a.ctx, fileID)
}

// SearchKB searches knowledge bases by keywords and meaning.
func (a *App) SearchKB(req kb.SearchRequest) ([]kb.Hit, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	return s.Search(a.ctx, req)
}

// AddKBUpload adds a file the window read (a drop or a picker), its content in base64.
func (a *App) AddKBUpload(id, name, dataBase64 string) (kb.File, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.File{}, err
	}
	data, err := base64.StdEncoding.DecodeString(dataBase64)
	if err != nil {
		return kb.File{}, apperr.Wrap(err, apperr.KBUploadInvalid, "upload %s", name).WithParam("name", name)
	}
	return s.AddUpload(a.ctx, id, name, bytes.NewReader(data))
}

// AddKBFolder adds a folder's files and remembers the folder; sync keeps it up to date.
func (a *App) AddKBFolder(id, path string, opt kb.AddOptions, sync bool) (kb.Folder, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.Folder{}, err
	}
	return s.AddFolder(a.ctx, id, path, opt, sync)
}

// ListKBFolders lists the folders of a knowledge base.
func (a *App) ListKBFolders(id string) ([]kb.Folder, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	return s.Folders(a.ctx, id)
}

// SetKBFolderSync turns a folder's sync on or off.
func (a *App) SetKBFolderSync(folderID string, sync bool) (kb.Folder, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.Folder{}, err
	}
	return s.SetFolderSync(a.ctx, folderID, sync)
}

// RemoveKBFolder forgets a folder and removes the files that came only from it.
func (a *App) RemoveKBFolder(folderID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	return s.RemoveFolder(a.ctx, folderID)
}

// SetKBEmbedding changes the embedding model ("PROVIDER/MODEL", "" for keywords only);
// the KB re-embeds in the background.
func (a *App) SetKBEmbedding(id, embedding string) (kb.KB, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.KB{}, err
	}
	return s.SetEmbedding(a.ctx, id, embedding)
}

// SetKBRerank sets the rerank model ("PROVIDER/MODEL", "" for none).
func (a *App) SetKBRerank(id, rerank string) (kb.KB, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.KB{}, err
	}
	return s.SetRerank(a.ctx, id, rerank)
}

// GetSessionKBs lists the ids of the knowledge bases a session attached.
func (a *App) GetSessionKBs(sessionID string) ([]string, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	return s.SessionKBs(a.ctx, sessionID)
}

// SetSessionKBs attaches knowledge bases to a session (kb_search searches them by
// default) and, when there are any, turns the session's kb toolset on.
func (a *App) SetSessionKBs(sessionID string, kbIDs []string) ([]string, error) {
	s, err := a.kbs()
	if err != nil {
		return nil, err
	}
	snap, err := a.s.Chat.GetSession(a.ctx, sessionID)
	if err != nil {
		return nil, err
	}
	ids, err := s.SetSessionKBs(a.ctx, sessionID, kbIDs)
	if err != nil || len(ids) == 0 || slices.Contains(snap.Session.Toolsets, kb.Name) {
		return ids, err
	}
	ts := append(slices.Clone(snap.Session.Toolsets), kb.Name)
	_, err = a.s.Chat.UpdateSession(a.ctx, sessionID, chat.SessionPatch{Toolsets: &ts})
	return ids, err
}

// AddKBUploadPart sends one part of a file too large for one call (base64); the first
// part has no uploadID, the last sets last and adds the file.
func (a *App) AddKBUploadPart(id, name, uploadID, dataBase64 string, last bool) (kb.UploadResult, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.UploadResult{}, err
	}
	data, err := base64.StdEncoding.DecodeString(dataBase64)
	if err != nil {
		return kb.UploadResult{}, apperr.Wrap(err, apperr.KBUploadInvalid, "upload %s", name).WithParam("name", name)
	}
	return s.UploadPart(a.ctx, id, name, uploadID, data, last)
}

// GetKBFileView is a file's text for the viewer a search hit opens: its chunks in order
// with the overlap between them left out.
func (a *App) GetKBFileView(fileID string) (kb.FileView, error) {
	s, err := a.kbs()
	if err != nil {
		return kb.FileView{}, err
	}
	return s.FileView(a.ctx, fileID)
}

// OpenKBFile opens a file added from disk with the desktop's default application (a
// program or script: its folder). Only the desktop window does, where the user sits at
// the machine that holds the file.
func (a *App) OpenKBFile(fileID string) error {
	s, err := a.kbs()
	if err != nil {
		return err
	}
	v, err := s.FileView(a.ctx, fileID)
	if err != nil {
		return err
	}
	name := v.File.Name
	switch {
	case !v.OnDisk:
		return apperr.New(apperr.KBOpenFailed, "open %s: not a file on disk", name).WithParam("name", name).WithParam("message", "it was added as text or an upload")
	case a.openFile == nil:
		return apperr.New(apperr.KBOpenFailed, "open %s: no desktop here", name).WithParam("name", name).WithParam("message", "only the desktop window opens files")
	}
	if err := a.openFile(v.File.Source); err != nil {
		return apperr.Wrap(err, apperr.KBOpenFailed, "open %s", name).WithParam("name", name).WithParam("message", errMessage(err))
	}
	return nil
}
