package transfer

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Export formats.
const (
	FormatMarkdown = "md"
	FormatJSON     = "json"
)

// ExportOptions says what a Markdown export includes.
type ExportOptions struct {
	Reasoning bool   `json:"reasoning"`
	Labels    Labels `json:"labels"`
}

// Export writes one conversation as Markdown or JSON.
func (s *Service) Export(ctx context.Context, id, format string, opt ExportOptions) (File, error) {
	c, err := s.conversation(ctx, id)
	if err != nil {
		return File{}, err
	}
	base := fileBase(c)
	switch format {
	case FormatMarkdown:
		return File{Name: base + ".md", MIME: "text/markdown", Data: []byte(Markdown(c, opt))}, nil
	case FormatJSON:
		b, err := s.encode([]Conversation{c})
		return File{Name: base + ".json", MIME: "application/json", Data: b}, err
	}
	return File{}, apperr.New(apperr.ExportFormatUnknown, "export format %q", format).WithParam("format", apperr.Quote(format))
}

// ExportAll writes every conversation into a zip: conversations.json (all of them, the
// file an import reads) and one Markdown file each under markdown/.
func (s *Service) ExportAll(ctx context.Context, opt ExportOptions) (File, error) {
	list, err := s.chat.ListSessions(ctx, "")
	if err != nil {
		return File{}, err
	}
	convs := make([]Conversation, 0, len(list.Sessions))
	for _, sess := range list.Sessions {
		c, err := s.conversation(ctx, sess.ID)
		if err != nil {
			return File{}, err
		}
		convs = append(convs, c)
	}
	doc, err := s.encode(convs)
	if err != nil {
		return File{}, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) error {
		w, err := zw.Create(name)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	if err := add("conversations.json", doc); err != nil {
		return File{}, apperr.Wrap(err, apperr.Internal, "zip export")
	}
	for _, c := range convs {
		if err := add("markdown/"+fileBase(c)+".md", []byte(Markdown(c, opt))); err != nil {
			return File{}, apperr.Wrap(err, apperr.Internal, "zip export")
		}
	}
	if err := zw.Close(); err != nil {
		return File{}, apperr.Wrap(err, apperr.Internal, "zip export")
	}
	name := "cairn-conversations-" + time.Now().Format("2006-01-02") + ".zip"
	return File{Name: name, MIME: "application/zip", Data: buf.Bytes()}, nil
}

func (s *Service) encode(convs []Conversation) ([]byte, error) {
	doc := Document{Format: FormatName, Version: FormatVersion, App: s.app, ExportedAt: time.Now().UnixMilli(), Conversations: convs}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "encode export")
	}
	return append(b, '\n'), nil
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}._-]+`)

// fileBase is a file name for a conversation: its title made safe, then its id.
func fileBase(c Conversation) string {
	t := strings.Trim(unsafeName.ReplaceAllString(c.Session.Title, "-"), "-.")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:60])
	}
	if t == "" {
		return fmt.Sprintf("conversation-%s", c.Session.ID)
	}
	return t + "-" + c.Session.ID
}
