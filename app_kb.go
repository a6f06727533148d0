package main

import (
	"github.com/cairn-app/cairn/backend/apperr"
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
