// Package transfer takes a user's data out of Cairn and back in: conversations exported
// as Markdown (to read) or JSON (complete, versioned), all of them as a zip; imports of
// Cairn's JSON and ChatGPT's conversations.json with a report per conversation; and
// backup / restore of the whole data directory. The facade and the CLI both call it, so
// a window and `cairn sessions export` write the same file.
package transfer

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-app/cairn/backend/chat"
)

// FormatName and FormatVersion identify Cairn's JSON export; an import refuses a newer
// version (a field it does not know could be a part it would drop). Version 2 holds every
// branch (messages with their parents and choices); a version 1 file is a line.
const (
	FormatName    = "cairn.conversations"
	FormatVersion = 2
)

// Document is Cairn's JSON export: every part of every message, and the files its tool
// parts name (images, spilled results) so that nothing depends on the data directory.
type Document struct {
	Format        string         `json:"format"`
	Version       int            `json:"version"`
	App           string         `json:"app,omitempty"`
	ExportedAt    int64          `json:"exportedAt"`
	Conversations []Conversation `json:"conversations"`
}

// Conversation is one session with its messages: every version of every branch, in the
// order they were written, each naming its parent and chosen follower (the session its
// chosen first message), so an import restores the tree as it was. Paths in its tool parts are relative to
// the data directory (tool-images/<session>/<file>); Files holds their bytes by that path.
type Conversation struct {
	Session  chat.Session      `json:"session"`
	Messages []chat.Message    `json:"messages"`
	Files    map[string][]byte `json:"files,omitempty"`
}

// File is an export ready to save: its suggested name, type and bytes.
type File struct {
	Name string `json:"name"`
	MIME string `json:"mime"`
	Data []byte `json:"data"`
}

// Chat is what transfer needs of the chat service (*chat.Service).
type Chat interface {
	ListSessions(ctx context.Context, query string) (chat.SessionList, error)
	Transcript(ctx context.Context, id string) (chat.Transcript, error)
	Import(ctx context.Context, ts []chat.Transcript, place func(*chat.Transcript) error) ([]chat.Session, error)
}

// Attachments is what transfer needs of the attachment store (*files.Store): where a
// file's bytes are, for an export, and storing one an import carries.
type Attachments interface {
	Path(id string) string
	Put(ctx context.Context, name string, r io.Reader) (chat.Attachment, error)
}

// Service exports and imports the conversations of one data directory.
type Service struct {
	chat    Chat
	files   Attachments
	dataDir string
	app     string
}

// New returns the transfer service over a chat service, its attachment store (nil: files
// on messages are exported by name only) and its data directory; app is written into
// exports ("Cairn 1.2.3").
func New(c Chat, files Attachments, dataDir, app string) *Service {
	return &Service{chat: c, files: files, dataDir: dataDir, app: app}
}

// conversation reads one session and the files its parts name, with paths made relative.
func (s *Service) conversation(ctx context.Context, id string) (Conversation, error) {
	tr, err := s.chat.Transcript(ctx, id)
	if err != nil {
		return Conversation{}, err
	}
	c := Conversation{Session: tr.Session, Messages: tr.Messages}
	for i := range c.Messages {
		for j := range c.Messages[i].Parts {
			s.collect(&c, &c.Messages[i].Parts[j])
		}
	}
	return c, nil
}

// collect makes a part's file paths relative to the data directory and keeps the files'
// bytes; a file that is gone keeps its name only (the export still says it was there).
func (s *Service) collect(c *Conversation, p *chat.Part) {
	if p.Attachment != nil {
		s.collectAttachment(c, p.Attachment)
	}
	if p.Tool == nil {
		return
	}
	keep := func(path string) string {
		rel, ok := s.relative(path)
		if !ok {
			return path
		}
		if b, err := os.ReadFile(filepath.Join(s.dataDir, filepath.FromSlash(rel))); err == nil {
			if c.Files == nil {
				c.Files = map[string][]byte{}
			}
			c.Files[rel] = b
		}
		return rel
	}
	if p.Tool.SpillPath != "" {
		p.Tool.SpillPath = keep(p.Tool.SpillPath)
	}
	for k := range p.Tool.Images {
		p.Tool.Images[k].Path = keep(p.Tool.Images[k].Path)
	}
}

// attachmentKey is where an export keeps the bytes of a file attached to a message.
func attachmentKey(id string) string { return "attachments/" + id }

// collectAttachment keeps the bytes of a message's attachment, so an import elsewhere
// has the file (its text is read again there).
func (s *Service) collectAttachment(c *Conversation, a *chat.Attachment) {
	if s.files == nil || a.ID == "" || s.files.Path(a.ID) == "" {
		return
	}
	b, err := os.ReadFile(s.files.Path(a.ID))
	if err != nil {
		return
	}
	if c.Files == nil {
		c.Files = map[string][]byte{}
	}
	c.Files[attachmentKey(a.ID)] = b
}

// relative is path inside the data directory's tool folders, slash-separated.
func (s *Service) relative(path string) (string, bool) {
	rel, err := filepath.Rel(s.dataDir, path)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "tool-images/") && !strings.HasPrefix(rel, "tool-results/") {
		return "", false
	}
	return rel, true
}
