package service

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/mcp"
)

// TestAttachMCPResourceText attaches one of server-everything's documents to a message:
// the model's request carries its text inline, named by the server and URI, and the
// stored message keeps it as an attachment part with its source (the chip's).
func TestAttachMCPResourceText(t *testing.T) {
	var runs atomic.Int32
	s, view := withEverything(t, &runs)
	ctx := context.Background()
	list, err := s.MCP.Resources(ctx, view.ID)
	if err != nil {
		t.Fatal(err)
	}
	var doc mcp.ResourceInfo
	for _, r := range list.Resources {
		if strings.HasPrefix(r.URI, "demo://resource/static/document/") {
			doc = r
			break
		}
	}
	if doc.URI == "" {
		t.Fatalf("no static document among %+v", list.Resources)
	}
	contents, err := s.MCP.ReadResource(ctx, view.ID, doc.URI)
	if err != nil || len(contents) == 0 || contents[0].Text == "" {
		t.Fatalf("read %s: %+v %v", doc.URI, contents, err)
	}
	line := firstLine(contents[0].Text)

	att, err := s.AttachMCPResource(ctx, view.ID, doc.URI, doc.Name)
	if err != nil {
		t.Fatal(err)
	}
	if att.ID == "" || att.Kind != chat.AttachmentDocument || att.Source == nil || att.Source.URI != doc.URI || att.Source.Server != "everything" {
		t.Fatalf("attachment %+v (source %+v)", att, att.Source)
	}
	srv, sess := visionSession(t, s, "blind", false)
	srv.Enqueue(llmtest.Reply{Text: "Read it."})
	if _, err := s.Chat.Send(ctx, sess.ID, "summarise this", []chat.AttachmentInput{{ID: att.ID, Name: att.Name, Source: att.Source}}); err != nil {
		t.Fatal(err)
	}
	snap := waitIdle(t, s, sess.ID)
	user := lastUser(t, srv.Requests()[len(srv.Requests())-1].Body)
	for _, want := range []string{`mcp_server="everything"`, `uri="` + doc.URI + `"`, line, "summarise this"} {
		if !strings.Contains(user.Content, want) {
			t.Fatalf("the user message lacks %q:\n%s", want, user.Content)
		}
	}
	got := storedAttachment(t, snap)
	if got.Source == nil || *got.Source != *att.Source || got.ID != att.ID {
		t.Fatalf("stored %+v, want the source %+v", got, att.Source)
	}
}

// fakeResources serves one resource from memory.
type fakeResources struct {
	contents []mcp.ResourceContent
}

func (f fakeResources) View(context.Context, string) (mcp.ServerView, error) {
	return mcp.ServerView{Server: mcp.Server{Name: "pictures"}}, nil
}

func (f fakeResources) ReadResource(context.Context, string, string) ([]mcp.ResourceContent, error) {
	return f.contents, nil
}

// TestAttachMCPResourceImage: an image resource goes to a vision model as an image part
// of the user's message, byte for byte; a model that cannot see is refused before
// anything is sent; a resource with no content is said so.
func TestAttachMCPResourceImage(t *testing.T) {
	var runs atomic.Int32
	s := open(t, t.TempDir(), &runs)
	defer s.Close()
	ctx := context.Background()
	pic := pngBytes(t)
	rr := fakeResources{contents: []mcp.ResourceContent{{URI: "pics://logo", MIMEType: "image/png", Blob: base64.StdEncoding.EncodeToString(pic), Size: len(pic)}}}
	att, err := attachResource(ctx, rr, s.Files, "srv", "pics://logo", "")
	if err != nil {
		t.Fatal(err)
	}
	if att.Kind != chat.AttachmentImage || att.Name != "logo.png" || att.Source == nil || att.Source.Server != "pictures" {
		t.Fatalf("attachment %+v", att)
	}
	in := []chat.AttachmentInput{{ID: att.ID, Name: att.Name, Source: att.Source}}

	srv, seeing := visionSession(t, s, "seeing", true)
	srv.Enqueue(llmtest.Reply{Text: "A square."})
	if _, err := s.Chat.Send(ctx, seeing.ID, "what is it?", in); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s, seeing.ID)
	user := lastUser(t, srv.Requests()[len(srv.Requests())-1].Body)
	urls := user.ImageURLs()
	if len(urls) != 1 || urls[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(pic) {
		t.Fatalf("image parts %d, want the resource's bytes", len(urls))
	}
	if !strings.Contains(user.Content, `uri="pics://logo"`) {
		t.Fatalf("the user message does not name the resource: %s", user.Content)
	}

	_, blind := visionSession(t, s, "blind", false)
	_, err = s.Chat.Send(ctx, blind.ID, "what is it?", in)
	wantCode(t, err, apperr.AttachmentNeedsVision)

	_, err = attachResource(ctx, fakeResources{}, s.Files, "srv", "pics://none", "none")
	wantCode(t, err, apperr.MCPResourceEmpty)
}

func TestResourceFileName(t *testing.T) {
	for _, c := range []struct{ name, uri, mime, want string }{
		{"Document: readme.md", "demo://x", "text/markdown", "Document: readme.md"},
		{"Resource 1", "demo://resource/1", "text/plain", "Resource 1.txt"},
		{"", "file:///var/log/app/", "text/plain", "app.txt"},
		{"", "pics://logo", "image/png", "logo.png"},
		{"a/b\\c", "x://y", "application/json", "a_b_c.json"},
		{"", "", "", "resource.txt"},
		{"data", "x://y", "application/vnd.api+json", "data.json"},
		{"drawing", "x://y", "image/svg+xml", "drawing.svg"},
	} {
		if got := resourceFileName(c.name, c.uri, c.mime); got != c.want {
			t.Errorf("resourceFileName(%q, %q, %q) = %q, want %q", c.name, c.uri, c.mime, got, c.want)
		}
	}
}

// visionSession is a new session on a fresh fake provider whose one model sees or not.
func visionSession(t *testing.T, s *Services, name string, vision bool) (*llmtest.Server, chat.Session) {
	t.Helper()
	ctx := context.Background()
	srv := llmtest.Start(t)
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake " + name, BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m", Vision: vision, ContextWindow: 128000}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{ProviderID: p.ID, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, sess
}

func lastUser(t *testing.T, body llmtest.ChatRequest) llmtest.Message {
	t.Helper()
	for i := len(body.Messages) - 1; i >= 0; i-- {
		if body.Messages[i].Role == "user" {
			return body.Messages[i]
		}
	}
	t.Fatal("no user message in the request")
	return llmtest.Message{}
}

func storedAttachment(t *testing.T, snap chat.Snapshot) chat.Attachment {
	t.Helper()
	for _, m := range snap.Messages {
		for _, p := range m.Parts {
			if p.Type == chat.PartAttachment && p.Attachment != nil {
				return *p.Attachment
			}
		}
	}
	t.Fatal("no attachment part stored")
	return chat.Attachment{}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	img.Set(3, 3, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func wantCode(t *testing.T, err error, code apperr.Code) {
	t.Helper()
	if err == nil || apperr.From(err).Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
}
