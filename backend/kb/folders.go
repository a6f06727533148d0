package kb

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// syncer keeps synced folders and their KBs equal: every folder with sync on is scanned
// when the service starts and then every Config.SyncEvery. A scan is a walk comparing each
// file's size and mtime with what was seen last; a file that differs is copied in (by its
// content hash, so a touched but unchanged file changes nothing), a file no longer there
// is removed. Polling rather than fsnotify: it sees changes made while Cairn was closed,
// on network mounts and in trees larger than the inotify watch limit, and costs one
// stat per file per round.
type syncer struct {
	mu   sync.Mutex // one scan at a time
	done chan struct{}
}

func (s *Service) startSync() {
	s.sync = &syncer{done: make(chan struct{})}
	go func() {
		defer close(s.sync.done)
		if s.cfg.SyncEvery < 0 {
			return
		}
		for {
			s.syncAll()
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(s.cfg.SyncEvery):
			}
		}
	}()
}

func (s *Service) syncAll() {
	folders, err := s.st.Folders(s.ctx, "")
	if err != nil {
		return
	}
	for _, f := range folders {
		if !f.Sync || s.ctx.Err() != nil {
			continue
		}
		if err := s.scanFolder(s.ctx, f); err != nil {
			s.log.Warn("kb: folder sync", "path", f.Path, "err", err)
		}
	}
}

// AddFolder adds a folder's files to a KB and remembers the folder; with sync on, later
// changes in it are picked up too.
func (s *Service) AddFolder(ctx context.Context, ref, path string, opt AddOptions, sync bool) (Folder, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return Folder{}, err
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(abs); err == nil && !st.IsDir() {
			err = errors.New("not a folder")
		}
	}
	if err != nil {
		return Folder{}, apperr.Wrap(err, apperr.KBAddFailed, "folder %s", path).WithParam("name", path)
	}
	ignore := opt.Ignore
	if ignore == nil {
		ignore = []string{}
	}
	f, err := s.st.AddFolder(ctx, Folder{ID: newID(), KBID: k.ID, Path: abs, Ignore: ignore, Sync: sync, CreatedAt: now()})
	if err != nil {
		return Folder{}, err
	}
	err = s.scanFolder(ctx, f)
	s.changed()
	if err != nil {
		return f, err
	}
	return s.st.Folder(ctx, f.ID)
}

// Folders lists a KB's folders.
func (s *Service) Folders(ctx context.Context, ref string) ([]Folder, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.st.Folders(ctx, k.ID)
}

// SetFolderSync turns a folder's sync on (it is scanned at once) or off.
func (s *Service) SetFolderSync(ctx context.Context, id string, on bool) (Folder, error) {
	f, err := s.st.Folder(ctx, id)
	if err != nil {
		return Folder{}, err
	}
	if err := s.st.SetFolderSync(ctx, id, on, 0); err != nil {
		return Folder{}, err
	}
	f.Sync = on
	if on {
		if err := s.scanFolder(ctx, f); err != nil {
			return f, err
		}
	}
	s.changed()
	return s.st.Folder(ctx, id)
}

// RemoveFolder forgets a folder and removes the files that came only from it.
func (s *Service) RemoveFolder(ctx context.Context, id string) error {
	s.sync.mu.Lock()
	defer s.sync.mu.Unlock()
	entries, err := s.st.FolderEntries(ctx, id)
	if err != nil {
		return err
	}
	if err := s.st.DeleteFolder(ctx, id); err != nil {
		return err
	}
	for _, e := range entries {
		s.dropUnused(ctx, e.FileID)
	}
	s.changed()
	return nil
}

// dropUnused removes a file no folder entry holds any more.
func (s *Service) dropUnused(ctx context.Context, fileID string) {
	if n, err := s.st.EntryUsers(ctx, fileID); err != nil || n > 0 {
		return
	}
	if err := s.RemoveFile(ctx, fileID); err != nil && apperr.From(err).Code != apperr.KBFileNotFound {
		s.log.Warn("kb: remove synced file", "file", fileID, "err", err)
	}
}

// scanFolder brings a folder's files in the KB up to date with the disk.
func (s *Service) scanFolder(ctx context.Context, f Folder) error {
	s.sync.mu.Lock()
	defer s.sync.mu.Unlock()
	k, err := s.st.KB(ctx, f.KBID)
	if err != nil {
		return err
	}
	if _, err := os.Stat(f.Path); err != nil {
		return apperr.Wrap(err, apperr.KBAddFailed, "folder %s", f.Path).WithParam("name", f.Path)
	}
	seen, err := s.st.FolderEntries(ctx, f.ID)
	if err != nil {
		return err
	}
	left := make(map[string]FolderEntry, len(seen))
	for rel, e := range seen {
		left[rel] = e
	}
	err = filepath.WalkDir(f.Path, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path == f.Path {
			return err
		}
		rel, _ := filepath.Rel(f.Path, path)
		if err != nil || ignored(rel, d.Name(), f.Ignore) {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		delete(left, rel)
		s.syncFile(ctx, k, f, rel, path, seen[rel])
		return nil
	})
	if err != nil {
		return err
	}
	for rel, e := range left {
		if err := s.st.DeleteFolderEntry(ctx, f.ID, rel); err == nil {
			s.dropUnused(ctx, e.FileID)
		}
	}
	return s.st.SetFolderSync(ctx, f.ID, f.Sync, now())
}

// settleTime is how long a synced file's change must be left alone before it is read.
const settleTime = 2 * time.Second

// syncFile copies one file in when it is new or its size or mtime moved; the file it
// replaces goes when nothing else holds it.
func (s *Service) syncFile(ctx context.Context, k KB, f Folder, rel, path string, was FolderEntry) {
	info, err := os.Stat(path)
	if err != nil {
		return
	}
	if was.FileID != "" && was.Size == info.Size() && was.MTime == info.ModTime().UnixNano() {
		if _, err := s.st.File(ctx, was.FileID); err == nil {
			return
		}
	}
	// A known file changed moments ago may be half written (an editor truncates, then
	// writes): it is taken once it has settled, at a later scan, so a truncated copy never
	// replaces the file.
	if was.FileID != "" && time.Since(info.ModTime()) < settleTime {
		return
	}
	got, err := s.addFile(ctx, k, path)
	if err != nil {
		s.log.Warn("kb: synced file skipped", "path", path, "err", err)
		return
	}
	e := FolderEntry{FolderID: f.ID, Rel: rel, Size: info.Size(), MTime: info.ModTime().UnixNano(), SHA256: got.SHA256, FileID: got.ID}
	if err := s.st.PutFolderEntry(ctx, e); err != nil {
		return
	}
	if was.FileID != "" && was.FileID != got.ID {
		s.dropUnused(ctx, was.FileID)
	}
}
