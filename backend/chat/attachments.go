package chat

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/tools"
)

// Attachment kinds: an image goes to a vision model as an image part, a document as the
// text its parser extracted.
const (
	AttachmentImage    = "image"
	AttachmentDocument = "document"
)

// Attachment is a file on a user message, as its part keeps it. ID is the SHA-256 of the
// content (the copy in the data directory); an attachment that could not be taken has no
// ID and says why in Error, so the message records what was left out.
type Attachment struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	MIME   string `json:"mime,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Lines  int    `json:"lines,omitempty"`
	Tokens int    `json:"tokens,omitempty"`
	// Inline says the text went into the message; a larger document is read by the model
	// through the file tools instead.
	Inline bool          `json:"inline,omitempty"`
	Error  *apperr.Error `json:"error,omitempty"`
	// Source is set for an MCP server's resource: its content as read when the user
	// attached it, named to the model by its URI.
	Source *ResourceSource `json:"source,omitempty"`
}

// ResourceSource is the MCP resource an attachment was read from: the server (its id and
// the name the user knows it by) and the resource's URI.
type ResourceSource struct {
	ServerID string `json:"serverId"`
	Server   string `json:"server"`
	URI      string `json:"uri"`
}

// attrs are the source's attributes in the model's <attachment> tag.
func (s *ResourceSource) attrs() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf(` mcp_server="%s" uri="%s"`, html.EscapeString(s.Server), html.EscapeString(s.URI))
}

// AttachmentInput names one file of a message being sent: an upload's ID and the name the
// user saw, or a file that failed (Error set, no ID), which the message lists as left out.
type AttachmentInput struct {
	ID    string        `json:"id,omitempty"`
	Name  string        `json:"name"`
	Size  int64         `json:"size,omitempty"`
	Error *apperr.Error `json:"error,omitempty"`
	// Source names the MCP resource an upload was read from (AttachMCPResource's answer).
	Source *ResourceSource `json:"source,omitempty"`
}

// Attachments is what chat needs of the attachment store (files.Store): uploads resolved
// to what a part records, links kept beside the messages (so deleting the last message
// that uses a file frees it), the text and image bytes for the model, and the toolset
// offered for documents too large to inline.
type Attachments interface {
	// Resolve looks the inputs up and decides, from the settings, which documents are
	// inlined; an input with an Error is passed through as a left-out attachment.
	Resolve(ctx context.Context, in []AttachmentInput) ([]Attachment, error)
	// Link records in q (the send's transaction) that message messageID uses atts.
	Link(ctx context.Context, q Execer, messageID string, atts []Attachment) error
	// Text is a document's extracted text.
	Text(ctx context.Context, id string) (string, error)
	// Path is where an attachment's bytes are.
	Path(id string) string
	// Release frees those of ids that no message uses any more.
	Release(ctx context.Context, ids []string) error
	// Toolset is the toolset whose tools read attachments that were not inlined, and
	// Instruction the text that names them for the model.
	Toolset() string
	Instruction(atts []Attachment) string
}

// Execer is the part of a transaction Link writes with.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// userInput is what a send stores as the user's message: the text, the files named by the
// window, and attachments carried over from the message an edit replaces.
type userInput struct {
	text    string
	files   []AttachmentInput
	carried []Attachment
	// child, when set, runs the answer as a sub-agent's (RunChild).
	child *ChildRun
}

func (u userInput) empty() bool {
	return u.text == "" && len(u.files) == 0 && len(u.carried) == 0
}

// resolveAttachments turns a send's files into the attachments its parts record, and
// refuses an image for a model that cannot see before anything is stored or sent (the
// model would otherwise answer as if it had looked).
func (s *Service) resolveAttachments(ctx context.Context, in userInput, target llm.Target) ([]Attachment, error) {
	atts := slices.Clone(in.carried)
	if len(in.files) > 0 {
		if s.cfg.Attachments == nil {
			return nil, badArg("attachments are not available here")
		}
		got, err := s.cfg.Attachments.Resolve(ctx, in.files)
		if err != nil {
			return nil, err
		}
		atts = append(atts, got...)
	}
	if target.Model.Vision {
		return atts, nil
	}
	for _, a := range atts {
		if a.Kind == AttachmentImage && a.Error == nil {
			return nil, apperr.New(apperr.AttachmentNeedsVision, "model %s cannot see images (%s)", target.Model.ID, a.Name).
				WithParam("model", target.Model.ID).WithParam("name", a.Name)
		}
	}
	return atts, nil
}

// storeAttachments writes the attachment parts of user message m after its text part and
// links the stored files to it.
func (s *Service) storeAttachments(ctx context.Context, tx querier, m *Message, atts []Attachment, now int64) error {
	for _, a := range atts {
		a := a
		p := Part{ID: newID(), MessageID: m.ID, Index: len(m.Parts), Type: PartAttachment, State: PartDone, Attachment: &a, CreatedAt: now, UpdatedAt: now}
		if err := insertPart(ctx, tx, p); err != nil {
			return err
		}
		m.Parts = append(m.Parts, p)
	}
	if len(atts) == 0 || s.cfg.Attachments == nil {
		return nil
	}
	return s.cfg.Attachments.Link(ctx, tx, m.ID, atts)
}

// attachmentsOf are the attachments of a message's parts.
func attachmentsOf(m Message) []Attachment {
	var out []Attachment
	for _, p := range m.Parts {
		if p.Type == PartAttachment && p.Attachment != nil {
			out = append(out, *p.Attachment)
		}
	}
	return out
}

// storedAttachmentIDs are the files the session's messages from seq on use, read before
// they are deleted so the files can be released afterwards.
func storedAttachmentIDs(ctx context.Context, q querier, sessionID string, seq int) ([]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT p.data FROM parts p JOIN messages m ON m.id = p.message_id WHERE m.session_id = ? AND m.seq >= ? AND p.type = ?",
		sessionID, seq, string(PartAttachment))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var data sql.NullString
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var d partData
		if json.Unmarshal([]byte(data.String), &d) == nil && d.Attachment != nil && d.Attachment.ID != "" && !slices.Contains(ids, d.Attachment.ID) {
			ids = append(ids, d.Attachment.ID)
		}
	}
	return ids, rows.Err()
}

// release frees the files no message uses any more; failing leaves only disk space.
func (s *Service) release(ctx context.Context, ids []string) {
	if len(ids) == 0 || s.cfg.Attachments == nil {
		return
	}
	if err := s.cfg.Attachments.Release(ctx, ids); err != nil {
		s.log.Warn("chat: release attachments", "err", err)
	}
}

// attachmentText is what the model reads of one attachment in the user's message: an
// inlined document's text, a note naming a document left to the file tools, an image's
// name (its pixels follow as an image part), or why a file was left out.
func attachmentText(ctx context.Context, a Attachment, store Attachments) string {
	// An MCP resource is named by its server and URI too, so the model can tell the
	// user where the text came from and ask the server for more.
	tag := fmt.Sprintf("<attachment name=\"%s\"%s", html.EscapeString(a.Name), a.Source.attrs())
	switch {
	case a.Error != nil:
		return fmt.Sprintf("%s omitted=\"true\">The user attached this file but it could not be read: %s</attachment>", tag, a.Error.Message)
	case a.Kind == AttachmentImage:
		return fmt.Sprintf("%s type=\"%s\" size=\"%d\">An image; a model that can see images receives it with this message.</attachment>", tag, a.MIME, a.Size)
	case !a.Inline || store == nil:
		return fmt.Sprintf("%s type=\"%s\" size=\"%d\" lines=\"%d\">Too long to include here: read it with file_read and search it with file_search.</attachment>",
			tag, a.MIME, a.Size, a.Lines)
	}
	text, err := store.Text(ctx, a.ID)
	if err != nil {
		return fmt.Sprintf("%s omitted=\"true\">The file's text could not be read.</attachment>", tag)
	}
	return fmt.Sprintf("%s type=\"%s\" lines=\"%d\">\n%s\n</attachment>", tag, a.MIME, a.Lines, strings.TrimRight(text, "\n"))
}

// userTurn is a stored user message as the model reads it: its text, then its
// attachments; image attachments ride along as images by path (visionHistory loads them
// for a model that can see).
func userTurn(ctx context.Context, m Message, store Attachments) (llm.Message, bool) {
	var b strings.Builder
	var images []llm.Image
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	for _, p := range m.Parts {
		switch {
		case p.Type == PartText:
			add(p.Text)
		case p.Type == PartAttachment && p.Attachment != nil:
			a := *p.Attachment
			add(attachmentText(ctx, a, store))
			if a.Kind == AttachmentImage && a.Error == nil && a.ID != "" && store != nil {
				images = append(images, llm.Image{MIMEType: a.MIME, Path: store.Path(a.ID)})
			}
		}
	}
	if b.Len() == 0 {
		return llm.Message{}, false
	}
	return llm.Message{Role: llm.RoleUser, Content: b.String(), Images: images}, true
}

// notInlined are the session's documents the model reads through the file tools.
func notInlined(msgs []Message) []Attachment {
	var out []Attachment
	for _, m := range msgs {
		if m.Role != RoleUser {
			continue
		}
		for _, a := range attachmentsOf(m) {
			if a.Error == nil && a.ID != "" && a.Kind == AttachmentDocument && !a.Inline {
				out = append(out, a)
			}
		}
	}
	return out
}

// offerFiles turns the file toolset on for this answer when the conversation has documents
// too long to inline, whatever the session's toolsets say (they cannot be read otherwise),
// and returns the instruction that names them.
func (r *run) offerFiles(scope *tools.Scope) string {
	store := r.svc.cfg.Attachments
	if len(r.files) == 0 || store == nil {
		return ""
	}
	if ts := store.Toolset(); !slices.Contains(scope.Toolsets, ts) {
		scope.Toolsets = append(slices.Clone(scope.Toolsets), ts)
	}
	return store.Instruction(r.files)
}
