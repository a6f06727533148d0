package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// AddOptions shape adding a folder: Ignore holds glob patterns (filepath.Match) matched
// against each name and each path relative to the folder; hidden files and folders (a
// name starting with a dot) are always skipped.
type AddOptions struct {
	Ignore []string `json:"ignore,omitempty"`
}

func (s *Service) blobPath(sha string) string {
	return filepath.Join(s.cfg.DataDir, "kb", "blobs", sha[:2], sha)
}

// store copies r into the blob directory under its sha256; the same content is kept once.
func (s *Service) store(r io.Reader) (sha string, size int64, err error) {
	dir := filepath.Join(s.cfg.DataDir, "kb", "blobs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, err
	}
	tmp, err := os.CreateTemp(dir, "in-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	size, err = io.Copy(io.MultiWriter(tmp, h), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	sha = hex.EncodeToString(h.Sum(nil))
	final := s.blobPath(sha)
	if _, err := os.Stat(final); err == nil {
		return sha, size, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return "", 0, err
	}
	return sha, size, os.Rename(tmp.Name(), final)
}

func (s *Service) dropBlob(ctx context.Context, sha string) {
	if n, err := s.st.BlobUsers(ctx, sha); err == nil && n == 0 {
		_ = os.Remove(s.blobPath(sha))
	}
}

// add copies one reader into the KB and queues it; content the KB has is not added twice.
func (s *Service) add(ctx context.Context, k KB, name, source string, r io.Reader) (File, error) {
	sha, size, err := s.store(r)
	if err != nil {
		return File{}, apperr.Wrap(err, apperr.KBAddFailed, "copy %s", name).WithParam("name", name)
	}
	f := File{ID: newID(), KBID: k.ID, Name: name, Source: source, SHA256: sha, Size: size, State: StateQueued, CreatedAt: now(), UpdatedAt: now()}
	s.pub.Lock()
	got, existed, err := s.st.AddFile(ctx, f)
	if err == nil && !existed {
		s.emitLocked(got, true)
	}
	s.pub.Unlock()
	if err != nil {
		return File{}, err
	}
	if !existed {
		s.changed()
		s.poke()
	}
	return got, nil
}

// AddText adds pasted text as a file named title (".txt" when it has no extension).
func (s *Service) AddText(ctx context.Context, ref, title, text string) (File, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return File{}, err
	}
	name := strings.TrimSpace(title)
	if name == "" {
		name = "text"
	}
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	if filepath.Ext(name) == "" {
		name += ".txt"
	}
	return s.add(ctx, k, name, "", strings.NewReader(text))
}

// AddUpload adds a file the window sent (a drop or a picker in a browser, which gives
// contents, not paths) under its base name.
func (s *Service) AddUpload(ctx context.Context, ref, name string, r io.Reader) (File, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return File{}, err
	}
	base := filepath.Base(strings.ReplaceAll(strings.TrimSpace(name), "\\", "/"))
	if base == "" || base == "." || base == "/" {
		return File{}, apperr.New(apperr.KBUploadInvalid, "a file needs a name").WithParam("name", name)
	}
	return s.add(ctx, k, base, "", r)
}

// AddPaths adds files and folders (recursively). It returns the files added or already
// there; a path that cannot be read is an error, a file inside a folder that cannot be
// read is skipped.
func (s *Service) AddPaths(ctx context.Context, ref string, paths []string, opt AddOptions) ([]File, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return out, apperr.Wrap(err, apperr.KBAddFailed, "path %s", p).WithParam("name", p)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return out, apperr.Wrap(err, apperr.KBAddFailed, "path %s", p).WithParam("name", p)
		}
		if !st.IsDir() {
			f, err := s.addFile(ctx, k, abs)
			if err != nil {
				return out, err
			}
			out = append(out, f)
			continue
		}
		got, err := s.addDir(ctx, k, abs, opt)
		out = append(out, got...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Service) addFile(ctx context.Context, k KB, path string) (File, error) {
	r, err := os.Open(path)
	if err != nil {
		return File{}, apperr.Wrap(err, apperr.KBAddFailed, "open %s", path).WithParam("name", filepath.Base(path))
	}
	defer r.Close()
	return s.add(ctx, k, filepath.Base(path), path, r)
}

func ignored(rel, name string, patterns []string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
		if ok, _ := filepath.Match(p, filepath.ToSlash(rel)); ok {
			return true
		}
	}
	return false
}

func (s *Service) addDir(ctx context.Context, k KB, root string, opt AddOptions) ([]File, error) {
	var out []File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if err != nil || ignored(rel, d.Name(), opt.Ignore) {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := s.addFile(ctx, k, path)
		if err != nil {
			s.log.Warn("kb: file skipped", "path", path, "err", err)
			return nil
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		return out, apperr.Wrap(err, apperr.KBAddFailed, "folder %s", root).WithParam("name", filepath.Base(root))
	}
	return out, nil
}

// stopCurrent cancels the worker's file when match says so.
func (s *Service) stopCurrent(match func(work) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current.cancel != nil && match(s.current) {
		s.current.cancel()
	}
}

// RemoveFile removes a file with its chunks (and its copy when no KB has it any more).
func (s *Service) RemoveFile(ctx context.Context, fileID string) error {
	f, err := s.st.File(ctx, fileID)
	if err != nil {
		return err
	}
	s.stopCurrent(func(w work) bool { return w.fileID == fileID })
	ids, err := s.st.DeleteFile(ctx, fileID)
	if err != nil {
		return err
	}
	s.indexChunks(f.KBID, ids, nil)
	s.dropBlob(ctx, f.SHA256)
	f.State = "removed"
	s.emit(f, true)
	s.changed()
	return nil
}

// Pause holds a KB's waiting and running files (or one file); Resume puts them back.
func (s *Service) Pause(ctx context.Context, ref, fileID string) error {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return err
	}
	if err := s.st.Pause(ctx, k.ID, fileID); err != nil {
		return err
	}
	s.stopCurrent(func(w work) bool { return w.kbID == k.ID && (fileID == "" || w.fileID == fileID) })
	s.emitKB(ctx, k.ID)
	return nil
}

// Resume continues paused files where they stopped.
func (s *Service) Resume(ctx context.Context, ref, fileID string) error {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return err
	}
	if err := s.st.Resume(ctx, k.ID, fileID); err != nil {
		return err
	}
	s.emitKB(ctx, k.ID)
	s.poke()
	return nil
}

// Cancel stops a file's ingest; it ends in error (kb_ingest_cancelled) and can be retried.
func (s *Service) Cancel(ctx context.Context, fileID string) error {
	f, err := s.st.File(ctx, fileID)
	if err != nil {
		return err
	}
	if _, err := s.st.SetState(ctx, fileID, StateError, []State{StateQueued, StateParsing, StateEmbedding, StatePaused},
		string(apperr.KBIngestCancelled), "ingest cancelled"); err != nil {
		return err
	}
	s.stopCurrent(func(w work) bool { return w.fileID == fileID })
	f, _ = s.st.File(ctx, f.ID)
	s.emit(f, true)
	return nil
}

// Retry (or re-index) one file: it is parsed again and its chunks replaced, never added
// to.
func (s *Service) Retry(ctx context.Context, fileID string) error {
	ok, err := s.st.SetState(ctx, fileID, StateQueued, []State{StateError, StateDone, StatePaused}, "", "")
	if err != nil {
		return err
	}
	if !ok {
		if _, err := s.st.File(ctx, fileID); err != nil {
			return err
		}
		return nil // already queued or being ingested
	}
	if f, err := s.st.File(ctx, fileID); err == nil {
		s.emit(f, true)
	}
	s.poke()
	return nil
}

// ReindexAll queues every file of a KB again.
func (s *Service) ReindexAll(ctx context.Context, ref string) error {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return err
	}
	files, err := s.st.Files(ctx, k.ID)
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		if err := s.Retry(ctx, f.ID); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Name, err))
		}
	}
	return errors.Join(errs...)
}
