package files

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	// The image formats an attachment may be: decoders registered for DecodeConfig.
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/webp"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/docparse"
)

// MaxBytes is the largest file that can be attached: larger ones get
// attachment_too_large and the message goes without them.
const MaxBytes = 20 << 20

// pendingKeep is how long an upload nobody sent is kept (a composer may hold it that
// long); a file some message used is freed as soon as no message uses it.
const pendingKeep = 24 * time.Hour

// Settings is what the store reads of the settings service.
type Settings interface {
	Int(ctx context.Context, key string) int
}

// Store keeps attached files in the data directory by content: the bytes under
// attachments/<id[:2]>/<id>, where id is their SHA-256, and a document's extracted text
// beside them. A conversation keeps working after the original file moves, one content
// is stored once however often it is attached, and the rows in attachment_links decide
// when it is freed. Store holds no state besides the database and the directory, so
// every user of the data directory may make its own.
type Store struct {
	db       *sql.DB
	dir      string
	settings Settings
	now      func() time.Time
}

// NewStore returns the store of the data directory dataDir.
func NewStore(db *sql.DB, dataDir string, settings Settings) *Store {
	return &Store{db: db, dir: filepath.Join(dataDir, "attachments"), settings: settings, now: time.Now}
}

// validID reports whether id is a SHA-256 in hex, so no id reaches the file system as a path.
func validID(id string) bool {
	if len(id) != 64 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// Path is where the bytes of attachment id are ("" for an id that is none).
func (s *Store) Path(id string) string {
	if !validID(id) {
		return ""
	}
	return filepath.Join(s.dir, id[:2], id)
}

// Put copies a file into the store and reads it: an image is checked to decode, a
// document is parsed by docparse and its text kept. A file that is too large, damaged,
// encrypted or of a type Cairn cannot read is refused with an apperr naming it.
func (s *Store) Put(ctx context.Context, name string, r io.Reader) (chat.Attachment, error) {
	tmp, id, size, err := s.copyIn(name, r)
	if err != nil {
		return chat.Attachment{}, err
	}
	defer os.Remove(tmp)
	att, text, err := s.read(ctx, name, tmp, size)
	if err != nil {
		return chat.Attachment{}, err
	}
	att.ID, att.Name, att.Size = id, name, size
	if err := s.keep(tmp, id, text, att.Kind); err != nil {
		return chat.Attachment{}, err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO attachments(id, size, mime, kind, lines, tokens, pending_since, created_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET pending_since = excluded.pending_since`,
		id, size, att.MIME, att.Kind, att.Lines, att.Tokens, s.now().UnixMilli(), s.now().UnixMilli())
	if err != nil {
		return chat.Attachment{}, apperr.Wrap(err, apperr.Internal, "store attachment %s", name)
	}
	att.Inline = s.inline(ctx, att)
	return att, nil
}

// copyIn writes r to a temporary file in the store while hashing it, refusing more than
// MaxBytes.
func (s *Store) copyIn(name string, r io.Reader) (path, id string, size int64, err error) {
	dir := filepath.Join(s.dir, "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", 0, apperr.Wrap(err, apperr.Internal, "attachments directory")
	}
	f, err := os.CreateTemp(dir, "put-*")
	if err != nil {
		return "", "", 0, apperr.Wrap(err, apperr.Internal, "attachments directory")
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		os.Remove(f.Name())
		return "", "", 0, apperr.Wrap(err, apperr.Internal, "copy attachment %s", name)
	case n > MaxBytes:
		os.Remove(f.Name())
		return "", "", 0, tooLarge(name)
	}
	return f.Name(), hex.EncodeToString(h.Sum(nil)), n, nil
}

func tooLarge(name string) error {
	return apperr.New(apperr.AttachmentTooLarge, "%s is larger than %d bytes", name, MaxBytes).
		WithParam("name", name).WithParam("limit", MaxBytes)
}

// imageTypes are the images a vision model takes.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// read classifies the file at path: an image by its content, anything else through
// docparse, whose text is kept (a line-based file's own lines, so line numbers match).
func (s *Store) read(ctx context.Context, name, path string, size int64) (chat.Attachment, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return chat.Attachment{}, "", apperr.Wrap(err, apperr.Internal, "read attachment %s", name)
	}
	if mime := http.DetectContentType(data); imageTypes[mime] {
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			return chat.Attachment{}, "", apperr.Wrap(err, apperr.AttachmentUnreadable, "image %s", name).WithParam("name", name)
		}
		return chat.Attachment{MIME: mime, Kind: chat.AttachmentImage}, "", nil
	}
	doc, err := docparse.Parse(ctx, name, bytes.NewReader(data), size, docparse.Options{MaxSize: MaxBytes})
	if err != nil {
		return chat.Attachment{}, "", err
	}
	text := doc.Text()
	if docparse.LineBased(doc.Format) {
		text = docparse.DecodeText(data)
	}
	return chat.Attachment{MIME: mimeOf(doc.Format, name), Kind: chat.AttachmentDocument, Lines: countLines(text), Tokens: docparse.Tokens(text)}, text, nil
}

// keep moves the file to its place by content (a content already stored stays as it is)
// and writes a document's text beside it.
func (s *Store) keep(tmp, id, text, kind string) error {
	dst := s.Path(id)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return apperr.Wrap(err, apperr.Internal, "attachments directory")
	}
	if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dst); err != nil {
			return apperr.Wrap(err, apperr.Internal, "store attachment")
		}
	}
	if kind != chat.AttachmentDocument {
		return nil
	}
	if err := os.WriteFile(dst+".txt", []byte(text), 0o600); err != nil {
		return apperr.Wrap(err, apperr.Internal, "store attachment text")
	}
	return nil
}

// countLines counts lines as an editor numbers them (a last line without a newline counts).
func countLines(text string) int {
	if text == "" {
		return 0
	}
	n := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// mimeOf is the media type the window and the model are told for a document.
func mimeOf(f docparse.Format, name string) string {
	switch f {
	case docparse.FormatPDF:
		return "application/pdf"
	case docparse.FormatDOCX:
		return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	case docparse.FormatPPTX:
		return "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	case docparse.FormatXLSX:
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case docparse.FormatODT:
		return "application/vnd.oasis.opendocument.text"
	case docparse.FormatEPUB:
		return "application/epub+zip"
	case docparse.FormatHTML:
		return "text/html"
	case docparse.FormatMarkdown:
		return "text/markdown"
	case docparse.FormatCSV:
		if strings.HasSuffix(strings.ToLower(name), ".tsv") {
			return "text/tab-separated-values"
		}
		return "text/csv"
	}
	return "text/plain"
}

// inline says whether a document's text goes into the message: within both of the
// settings' limits. Images are never "inlined" (they are image parts).
func (s *Store) inline(ctx context.Context, a chat.Attachment) bool {
	if a.Kind != chat.AttachmentDocument {
		return false
	}
	return a.Lines <= s.settings.Int(ctx, "files.inlineMaxLines") && a.Tokens <= s.settings.Int(ctx, "files.inlineMaxTokens")
}

// Upload is one part of a window's upload: its id for the next part, and the attachment
// once the last part arrived.
type Upload struct {
	UploadID   string           `json:"uploadId"`
	Attachment *chat.Attachment `json:"attachment,omitempty"`
}

// PutPart appends a part of a file a window sends in pieces (a request body is bounded)
// to a temporary file under attachments/uploads; the last part puts it in the store.
func (s *Store) PutPart(ctx context.Context, name, uploadID string, data []byte, last bool) (Upload, error) {
	if uploadID == "" {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		uploadID = hex.EncodeToString(b)
	} else if _, err := hex.DecodeString(uploadID); err != nil || len(uploadID) != 24 {
		return Upload{}, apperr.New(apperr.InvalidArgument, "bad upload id").WithParam("name", name)
	}
	dir := filepath.Join(s.dir, "uploads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Upload{}, apperr.Wrap(err, apperr.Internal, "attachments directory")
	}
	path := filepath.Join(dir, uploadID)
	if err := appendPart(path, data); err != nil {
		os.Remove(path)
		if errors.Is(err, errTooLarge) {
			return Upload{}, tooLarge(name)
		}
		return Upload{}, apperr.Wrap(err, apperr.Internal, "upload %s", name)
	}
	if !last {
		return Upload{UploadID: uploadID}, nil
	}
	defer os.Remove(path)
	f, err := os.Open(path)
	if err != nil {
		return Upload{}, apperr.Wrap(err, apperr.Internal, "upload %s", name)
	}
	defer f.Close()
	att, err := s.Put(ctx, name, f)
	if err != nil {
		return Upload{}, err
	}
	return Upload{UploadID: uploadID, Attachment: &att}, nil
}

var errTooLarge = errors.New("upload too large")

func appendPart(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size()+int64(len(data)) > MaxBytes {
		return errTooLarge
	}
	_, err = f.Write(data)
	return err
}

// Resolve is chat.Attachments.Resolve: the stored attachments the inputs name, inlined
// or not by the settings now; failed files pass through with their error.
func (s *Store) Resolve(ctx context.Context, in []chat.AttachmentInput) ([]chat.Attachment, error) {
	out := make([]chat.Attachment, 0, len(in))
	for _, f := range in {
		if f.Error != nil || f.ID == "" {
			e := f.Error
			if e == nil {
				e = apperr.New(apperr.AttachmentNotFound, "no upload for %s", f.Name).WithParam("name", f.Name)
			}
			out = append(out, chat.Attachment{Name: f.Name, Size: f.Size, Error: e, Source: f.Source})
			continue
		}
		a, err := s.lookup(ctx, f.ID)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.AttachmentNotFound, "attachment %s", f.Name).WithParam("name", f.Name)
		}
		a.Name, a.Source = f.Name, f.Source
		a.Inline = s.inline(ctx, a)
		out = append(out, a)
	}
	return out, nil
}

func (s *Store) lookup(ctx context.Context, id string) (chat.Attachment, error) {
	a := chat.Attachment{ID: id}
	err := s.db.QueryRowContext(ctx, "SELECT size, mime, kind, lines, tokens FROM attachments WHERE id = ?", id).
		Scan(&a.Size, &a.MIME, &a.Kind, &a.Lines, &a.Tokens)
	if err == nil && s.Path(id) != "" {
		_, err = os.Stat(s.Path(id))
	}
	return a, err
}

// Link is chat.Attachments.Link: the message uses these files from now on.
func (s *Store) Link(ctx context.Context, q chat.Execer, messageID string, atts []chat.Attachment) error {
	for i, a := range atts {
		if a.ID == "" || a.Error != nil {
			continue
		}
		// Only a stored file is linked: an imported message may name one its export did
		// not carry (the part still says it was there).
		if _, err := q.ExecContext(ctx, "INSERT INTO attachment_links(message_id, idx, attachment_id, name) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM attachments WHERE id = ?)",
			messageID, i, a.ID, a.Name, a.ID); err != nil {
			return fmt.Errorf("link attachment %s: %w", a.Name, err)
		}
		if _, err := q.ExecContext(ctx, "UPDATE attachments SET pending_since = 0 WHERE id = ?", a.ID); err != nil {
			return fmt.Errorf("link attachment %s: %w", a.Name, err)
		}
	}
	return nil
}

// Text is chat.Attachments.Text: a document's extracted text.
func (s *Store) Text(_ context.Context, id string) (string, error) {
	p := s.Path(id)
	if p == "" {
		return "", apperr.New(apperr.AttachmentNotFound, "bad attachment id").WithParam("name", id)
	}
	b, err := os.ReadFile(p + ".txt")
	if err != nil {
		return "", fmt.Errorf("attachment text: %w", err)
	}
	return string(b), nil
}

// Release is chat.Attachments.Release: each of ids that no message uses and no
// composer waits to send is deleted with its files.
func (s *Store) Release(ctx context.Context, ids []string) error {
	cutoff := s.now().Add(-pendingKeep).UnixMilli()
	var errs []error
	for _, id := range ids {
		res, err := s.db.ExecContext(ctx, `DELETE FROM attachments WHERE id = ? AND pending_since < ?
			AND NOT EXISTS (SELECT 1 FROM attachment_links WHERE attachment_id = ?)`, id, cutoff, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n, _ := res.RowsAffected(); n == 0 || s.Path(id) == "" {
			continue
		}
		matches, _ := filepath.Glob(s.Path(id) + "*") // the bytes, the text, a scaled copy
		for _, m := range matches {
			if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Sweep frees uploads that were never sent (after pendingKeep) and removes what an
// interrupted upload or copy left in the temporary folders.
func (s *Store) Sweep(ctx context.Context) error {
	for _, d := range []string{"tmp", "uploads"} {
		_ = os.RemoveAll(filepath.Join(s.dir, d))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM attachments a WHERE pending_since < ?
		AND NOT EXISTS (SELECT 1 FROM attachment_links WHERE attachment_id = a.id)`, s.now().Add(-pendingKeep).UnixMilli())
	if err != nil {
		return fmt.Errorf("sweep attachments: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("sweep attachments: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	return s.Release(ctx, ids)
}

// SessionFiles are the documents attached to a session's messages, in message order,
// each content and name once.
func (s *Store) SessionFiles(ctx context.Context, sessionID string) ([]chat.Attachment, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT a.id, l.name, a.size, a.mime, a.kind, a.lines, a.tokens
		FROM attachment_links l JOIN messages m ON m.id = l.message_id JOIN attachments a ON a.id = l.attachment_id
		WHERE m.session_id = ? AND a.kind = ? ORDER BY m.seq, l.idx`, sessionID, chat.AttachmentDocument)
	if err != nil {
		return nil, fmt.Errorf("session attachments: %w", err)
	}
	defer rows.Close()
	var out []chat.Attachment
	seen := map[string]bool{}
	for rows.Next() {
		var a chat.Attachment
		if err := rows.Scan(&a.ID, &a.Name, &a.Size, &a.MIME, &a.Kind, &a.Lines, &a.Tokens); err != nil {
			return nil, fmt.Errorf("session attachments: %w", err)
		}
		if key := a.ID + "\x00" + a.Name; !seen[key] {
			seen[key] = true
			out = append(out, a)
		}
	}
	return out, rows.Err()
}

// previewTextMax bounds the text a preview carries to a window (the file tools and the
// model read the whole).
const previewTextMax = 256 << 10

// Preview is what a window shows of an attachment when its chip is opened: an image whole
// as a data: URL, a document's extracted text (cut at previewTextMax, Truncated says so).
type Preview struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	MIME      string `json:"mime"`
	DataURL   string `json:"dataUrl,omitempty"`
	Text      string `json:"text,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Preview reads attachment id for its chip's dialog.
func (s *Store) Preview(ctx context.Context, id string) (Preview, error) {
	if !validID(id) {
		return Preview{}, apperr.New(apperr.AttachmentNotFound, "bad attachment id").WithParam("name", id)
	}
	a, err := s.lookup(ctx, id)
	if err != nil {
		return Preview{}, apperr.Wrap(err, apperr.AttachmentNotFound, "attachment %s", id).WithParam("name", id)
	}
	p := Preview{ID: id, Kind: a.Kind, MIME: a.MIME}
	if a.Kind == chat.AttachmentImage {
		b, err := os.ReadFile(s.Path(id))
		if err != nil {
			return Preview{}, apperr.Wrap(err, apperr.AttachmentNotFound, "attachment %s", id).WithParam("name", id)
		}
		p.DataURL = "data:" + a.MIME + ";base64," + base64.StdEncoding.EncodeToString(b)
		return p, nil
	}
	text, err := s.Text(ctx, id)
	if err != nil {
		return Preview{}, apperr.Wrap(err, apperr.AttachmentNotFound, "attachment %s", id).WithParam("name", id)
	}
	if len(text) > previewTextMax {
		cut := previewTextMax
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text, p.Truncated = text[:cut], true
	}
	p.Text = text
	return p, nil
}
