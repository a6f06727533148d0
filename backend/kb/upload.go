package kb

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cairn-app/cairn/backend/apperr"
)

// MaxUpload bounds one file sent in parts from a window.
const MaxUpload = 2 << 30

// UploadResult is where an upload in parts stands: its id for the next part, and the file
// once the last part is in.
type UploadResult struct {
	UploadID string `json:"uploadId"`
	File     *File  `json:"file,omitempty"`
}

// uploads are the files a window is sending in parts (a request body is capped, a
// document is not), each a temporary file under kb/uploads until its last part.
type uploads struct {
	mu    sync.Mutex
	files map[string]*upload
}

type upload struct {
	kbID, name string
	f          *os.File
	size       int64
}

func (s *Service) uploadDir() string { return filepath.Join(s.cfg.DataDir, "kb", "uploads") }

// UploadPart appends one part of a file to an upload (a new one when uploadID is empty);
// with last set the file is added to the KB like AddUpload and the upload ends.
func (s *Service) UploadPart(ctx context.Context, ref, name, uploadID string, data []byte, last bool) (UploadResult, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return UploadResult{}, err
	}
	u, id, err := s.openUpload(k.ID, name, uploadID)
	if err != nil {
		return UploadResult{}, err
	}
	u.size += int64(len(data))
	if u.size > MaxUpload {
		s.dropUpload(id)
		return UploadResult{}, apperr.New(apperr.DocTooLarge, "%s is larger than %d bytes", name, MaxUpload).WithParam("name", name)
	}
	if _, err := u.f.Write(data); err != nil {
		s.dropUpload(id)
		return UploadResult{}, apperr.Wrap(err, apperr.KBAddFailed, "write %s", name).WithParam("name", name)
	}
	if !last {
		return UploadResult{UploadID: id}, nil
	}
	defer s.dropUpload(id)
	if _, err := u.f.Seek(0, io.SeekStart); err != nil {
		return UploadResult{}, apperr.Wrap(err, apperr.KBAddFailed, "read %s", name).WithParam("name", name)
	}
	f, err := s.AddUpload(ctx, k.ID, u.name, u.f)
	if err != nil {
		return UploadResult{}, err
	}
	return UploadResult{UploadID: id, File: &f}, nil
}

func (s *Service) openUpload(kbID, name, id string) (*upload, string, error) {
	s.up.mu.Lock()
	defer s.up.mu.Unlock()
	if id != "" {
		u := s.up.files[id]
		if u == nil || u.kbID != kbID {
			return nil, "", apperr.New(apperr.KBUploadInvalid, "no upload %s", apperr.Quote(id)).WithParam("name", name)
		}
		return u, id, nil
	}
	if strings.TrimSpace(name) == "" {
		return nil, "", apperr.New(apperr.KBUploadInvalid, "a file needs a name").WithParam("name", name)
	}
	if err := os.MkdirAll(s.uploadDir(), 0o700); err != nil {
		return nil, "", apperr.Wrap(err, apperr.KBAddFailed, "upload %s", name).WithParam("name", name)
	}
	f, err := os.CreateTemp(s.uploadDir(), "up-*")
	if err != nil {
		return nil, "", apperr.Wrap(err, apperr.KBAddFailed, "upload %s", name).WithParam("name", name)
	}
	if s.up.files == nil {
		s.up.files = map[string]*upload{}
	}
	id = newID()
	s.up.files[id] = &upload{kbID: kbID, name: name, f: f}
	return s.up.files[id], id, nil
}

func (s *Service) dropUpload(id string) {
	s.up.mu.Lock()
	u := s.up.files[id]
	delete(s.up.files, id)
	s.up.mu.Unlock()
	if u != nil {
		u.f.Close()
		os.Remove(u.f.Name())
	}
}

// clearUploads removes every unfinished upload (at start: what a stopped process left).
func (s *Service) clearUploads() {
	s.up.mu.Lock()
	ids := make([]string, 0, len(s.up.files))
	for id := range s.up.files {
		ids = append(ids, id)
	}
	s.up.mu.Unlock()
	for _, id := range ids {
		s.dropUpload(id)
	}
	_ = os.RemoveAll(s.uploadDir())
}
