package transfer

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
)

// Import limits: a file larger than maxImport, or a zip entry that inflates past it, is
// refused before it is decoded.
const maxImport = 512 << 20

// Report statuses and the reasons a conversation is skipped (the window phrases them).
const (
	StatusImported = "imported"
	StatusSkipped  = "skipped"

	ReasonEmpty     = "empty"     // no message with text
	ReasonMalformed = "malformed" // the conversation's structure cannot be read
)

// ImportItem is one conversation of an import: what it was called, what happened.
type ImportItem struct {
	Title     string `json:"title"`
	Status    string `json:"status"`
	Reason    string `json:"reason,omitempty"`
	Detail    string `json:"detail,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Messages  int    `json:"messages"`
}

// ImportReport says what an import did, per conversation, and which format it read.
type ImportReport struct {
	Source   string       `json:"source"` // "cairn" | "chatgpt" | "claude"
	Imported int          `json:"imported"`
	Skipped  int          `json:"skipped"`
	Items    []ImportItem `json:"items"`
}

// candidate is a conversation read from a file, or why it could not be.
type candidate struct {
	conv   Conversation
	reason string
	detail string
}

// Import reads an export (Cairn's JSON, ChatGPT's or Claude's conversations.json, or a
// zip holding one) and stores every readable conversation in one transaction: a file that cannot
// be read as a whole is refused with import_invalid and stores nothing.
func (s *Service) Import(ctx context.Context, name string, data []byte) (ImportReport, error) {
	source, cands, err := parse(name, data)
	if err != nil {
		return ImportReport{}, err
	}
	rep := ImportReport{Source: source, Items: []ImportItem{}}
	var ts []chat.Transcript
	var files []map[string][]byte
	var at []int // index in rep.Items of each transcript
	for _, c := range cands {
		item := ImportItem{Title: c.conv.Session.Title, Messages: len(c.conv.Messages)}
		if c.reason == "" && len(c.conv.Messages) == 0 {
			c.reason = ReasonEmpty
		}
		if c.reason != "" {
			item.Status, item.Reason, item.Detail = StatusSkipped, c.reason, c.detail
			rep.Skipped++
		} else {
			at = append(at, len(rep.Items))
			ts = append(ts, chat.Transcript{Session: c.conv.Session, Messages: c.conv.Messages})
			files = append(files, c.conv.Files)
		}
		rep.Items = append(rep.Items, item)
	}
	if len(ts) == 0 {
		return rep, nil
	}
	// Before the import's transaction: the store writes on its own connection.
	for i := range ts {
		s.storeAttachments(ctx, &ts[i], files[i])
	}
	var written []string
	n := 0
	place := func(t *chat.Transcript) error {
		w, err := s.place(t, files[n])
		n++
		written = append(written, w...)
		return err
	}
	stored, err := s.chat.Import(ctx, ts, place)
	if err != nil {
		for _, w := range written {
			_ = os.Remove(w)
		}
		return ImportReport{}, err
	}
	for i, sess := range stored {
		it := &rep.Items[at[i]]
		it.Status, it.SessionID, it.Title = StatusImported, sess.ID, sess.Title
		rep.Imported++
	}
	return rep, nil
}

// storeAttachments puts the files an export carried for its messages' attachments in the
// store, each only when its bytes are the content its id names (a hand-edited export
// cannot make one file pass for another). A file that cannot be stored leaves its part
// naming it; chat links only those the store holds.
func (s *Service) storeAttachments(ctx context.Context, t *chat.Transcript, files map[string][]byte) {
	if s.files == nil {
		return
	}
	for _, m := range t.Messages {
		for _, p := range m.Parts {
			a := p.Attachment
			if a == nil || a.ID == "" {
				continue
			}
			data, ok := files[attachmentKey(a.ID)]
			if sum := sha256.Sum256(data); !ok || hex.EncodeToString(sum[:]) != a.ID {
				continue
			}
			_, _ = s.files.Put(ctx, a.Name, bytes.NewReader(data))
		}
	}
}

// place writes a transcript's files under its (final) session's folders and points its
// parts at them. It returns the files written, so a failed import can remove them.
func (s *Service) place(t *chat.Transcript, files map[string][]byte) ([]string, error) {
	var written []string
	move := func(rel string) (string, error) {
		rel = path.Clean(filepath.ToSlash(rel))
		data, ok := files[rel]
		parts := strings.Split(rel, "/")
		if !ok || len(parts) != 3 || (parts[0] != "tool-images" && parts[0] != "tool-results") || parts[2] == ".." {
			return rel, nil // a name only: the file was not in the export
		}
		dst := filepath.Join(s.dataDir, parts[0], t.Session.ID, filepath.Base(parts[2]))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return "", err
		}
		written = append(written, dst)
		return dst, nil
	}
	for i := range t.Messages {
		for j := range t.Messages[i].Parts {
			tool := t.Messages[i].Parts[j].Tool
			if tool == nil {
				continue
			}
			var err error
			if tool.SpillPath != "" {
				if tool.SpillPath, err = move(tool.SpillPath); err != nil {
					return written, err
				}
			}
			for k := range tool.Images {
				if tool.Images[k].Path, err = move(tool.Images[k].Path); err != nil {
					return written, err
				}
			}
		}
	}
	return written, nil
}

// parse finds the format of an export and reads its conversations.
func parse(name string, data []byte) (string, []candidate, error) {
	if len(data) > maxImport {
		return "", nil, invalid(name, "the file is larger than 512 MiB")
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		inner, err := fromZip(data)
		if err != nil {
			return "", nil, invalid(name, err.Error())
		}
		data = inner
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(trimmed, []byte("{")):
		cands, err := parseCairn(name, trimmed)
		return "cairn", cands, err
	case bytes.HasPrefix(trimmed, []byte("[")):
		return parseList(name, trimmed)
	}
	return "", nil, invalid(name, "it is not JSON")
}

// fromZip is the conversations.json inside a zip (Cairn's export-all, ChatGPT's export).
func fromZip(data []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("the zip cannot be read: %w", err)
	}
	for _, f := range zr.File {
		if path.Base(f.Name) != "conversations.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, maxImport+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxImport {
			return nil, fmt.Errorf("conversations.json inflates past 512 MiB")
		}
		return b, nil
	}
	return nil, fmt.Errorf("the zip has no conversations.json")
}

func invalid(name, why string) *apperr.Error {
	return apperr.New(apperr.ImportInvalid, "import %s: %s", name, why).WithParam("file", name).WithParam("message", why)
}

// parseCairn reads Cairn's own JSON export.
func parseCairn(name string, data []byte) ([]candidate, error) {
	var doc Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, invalid(name, err.Error())
	}
	if doc.Format != FormatName {
		return nil, invalid(name, fmt.Sprintf("its format is %s, not %s", apperr.Quote(doc.Format), FormatName))
	}
	if doc.Version > FormatVersion || doc.Version < 1 {
		return nil, apperr.New(apperr.ImportNewerFormat, "import %s: format version %d", name, doc.Version).
			WithParam("file", name).WithParam("version", doc.Version).WithParam("max", FormatVersion)
	}
	out := make([]candidate, 0, len(doc.Conversations))
	for _, c := range doc.Conversations {
		cand := candidate{conv: c}
		if c.Session.ID == "" {
			cand.reason, cand.detail = ReasonMalformed, "no session id"
		}
		for _, m := range c.Messages {
			if m.Role != chat.RoleUser && m.Role != chat.RoleAssistant {
				cand.reason, cand.detail = ReasonMalformed, "a message has the role "+apperr.Quote(m.Role)
			}
		}
		out = append(out, cand)
	}
	return out, nil
}
