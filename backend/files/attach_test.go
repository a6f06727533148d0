package files_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/service"
	"github.com/cairn-app/cairn/backend/transfer"
)

// env is one data directory's backend talking to a local OpenAI-wire server with a
// model that can see and one that cannot.
type env struct {
	s      *service.Services
	srv    *llmtest.Server
	dir    string
	prov   string
	tmpDir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	s, err := service.Open(context.Background(), service.Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := llmtest.Start(t)
	p, err := s.Providers.Save(context.Background(), llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "seeing", SupportsTools: true, Vision: true, ContextWindow: 128000}, {ID: "blind", SupportsTools: true, ContextWindow: 128000}}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{s: s, srv: srv, dir: dir, prov: p.ID, tmpDir: t.TempDir()}
}

func (e *env) session(t *testing.T, model string) chat.Session {
	t.Helper()
	sess, err := e.s.Chat.CreateSession(context.Background(), chat.SessionInput{ProviderID: e.prov, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return sess
}

// attach writes a file outside the data directory and puts it in the store, as a
// picker or `cairn chat --attach` does.
func (e *env) attach(t *testing.T, name string, data []byte) (chat.AttachmentInput, string) {
	t.Helper()
	path := filepath.Join(e.tmpDir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := e.s.Files.Put(context.Background(), name, f)
	if err != nil {
		t.Fatal(err)
	}
	return chat.AttachmentInput{ID: a.ID, Name: name}, path
}

func (e *env) send(t *testing.T, sessionID, text string, files ...chat.AttachmentInput) llmtest.ChatRequest {
	t.Helper()
	before := len(e.srv.Requests())
	if _, err := e.s.Chat.Send(context.Background(), sessionID, text, files); err != nil {
		t.Fatal(err)
	}
	e.wait(t, sessionID)
	reqs := e.srv.Requests()
	if len(reqs) <= before {
		t.Fatal("no request reached the model")
	}
	return reqs[before].Body
}

func (e *env) wait(t *testing.T, sessionID string) chat.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.s.Chat.Wait(ctx, sessionID); err != nil {
		t.Fatal(err)
	}
	snap, err := e.s.Chat.GetSession(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func lines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "row %d of the log\n", i)
	}
	return b.Bytes()
}

func lastUser(req llmtest.ChatRequest) llmtest.Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i]
		}
	}
	return llmtest.Message{}
}

func toolNames(req llmtest.ChatRequest) []string {
	var out []string
	for _, tl := range req.Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestThresholdInlinesSmallFilesAndOffersToolsForLarge: a file within the line limit is in
// the message and no file tool is offered; one above it is only named, and the request
// offers file_read and file_search with an instruction naming it, its size and lines.
// The model then pages through it with file_read.
func TestThresholdInlinesSmallFilesAndOffersToolsForLarge(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.s.Settings.Set(ctx, "files.inlineMaxLines", 100); err != nil {
		t.Fatal(err)
	}
	small, _ := e.attach(t, "small.log", lines(40))
	e.srv.Enqueue(llmtest.Reply{Text: "ok"})
	req := e.send(t, e.session(t, "seeing").ID, "summarise", small)
	user := lastUser(req)
	if !strings.Contains(user.Content, "row 40 of the log") || !strings.Contains(user.Content, `<attachment name="small.log"`) {
		t.Fatalf("small file not inlined: %q", user.Content)
	}
	if has(toolNames(req), "file_read") {
		t.Fatalf("file tools offered for an inlined file: %v", toolNames(req))
	}

	big, _ := e.attach(t, "big.log", lines(450))
	sess := e.session(t, "seeing")
	e.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "file_read", Arguments: `{"file":"big.log"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "r2", Name: "file_read", Arguments: `{"file":"big.log","offset":201,"limit":100}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "file_search", Arguments: `{"pattern":"row 44[0-9] ","context":1}`}}},
		llmtest.Reply{Text: "done"})
	before := len(e.srv.Requests())
	req = e.send(t, sess.ID, "what is in it?", big)
	user = lastUser(req)
	if strings.Contains(user.Content, "row 40 of the log") || !strings.Contains(user.Content, "file_read") {
		t.Fatalf("large file inlined: %q", user.Content[:min(len(user.Content), 400)])
	}
	if names := toolNames(req); !has(names, "file_read") || !has(names, "file_search") {
		t.Fatalf("file tools not offered: %v", names)
	}
	if sys := req.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "- big.log (text/plain, 8.2 KB, 450 lines)") {
		t.Fatalf("instruction does not name the file: %q", sys.Content)
	}
	reqs := e.srv.Requests()[before:]
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	want := []string{
		"big.log: lines 1-200 of 450\n     1\trow 1 of the log\n",
		"big.log: lines 201-300 of 450\n   201\trow 201 of the log\n",
		"10 matches for \"row 44[0-9] \" in 1 file(s).\n\nbig.log (450 lines): 10 matches\n   439- row 439 of the log\n   440: row 440 of the log\n",
	}
	for i, w := range want {
		got := reqs[i+1].Body.Messages[len(reqs[i+1].Body.Messages)-1]
		if got.Role != "tool" || !strings.HasPrefix(got.Content, w) {
			t.Fatalf("tool answer %d:\n%q\nwant prefix\n%q", i, got.Content[:min(200, len(got.Content))], w)
		}
	}
}

// TestAttachmentSurvivesTheOriginalMoving: the store keeps its own copy by content, so a
// later answer still reads the file after the original is gone; the same content
// attached twice is one copy.
func TestAttachmentSurvivesTheOriginalMoving(t *testing.T) {
	e := newEnv(t)
	in, path := e.attach(t, "notes.md", []byte("# Plan\n\nThe secret word is heliotrope.\n"))
	again, _ := e.attach(t, "copy.md", []byte("# Plan\n\nThe secret word is heliotrope.\n"))
	if in.ID != again.ID || len(in.ID) != 64 {
		t.Fatalf("same content, ids %q and %q", in.ID, again.ID)
	}
	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	sess := e.session(t, "blind")
	e.srv.Enqueue(llmtest.Reply{Text: "noted"}, llmtest.Reply{Text: "heliotrope"})
	e.send(t, sess.ID, "read this", in)
	if err := os.Remove(path + ".moved"); err != nil {
		t.Fatal(err)
	}
	req := e.send(t, sess.ID, "what was the word?")
	if first := req.Messages[0]; first.Role != "user" || !strings.Contains(first.Content, "heliotrope") {
		t.Fatalf("history lost the file: %+v", req.Messages)
	}
	blob := filepath.Join(e.dir, "attachments", in.ID[:2], in.ID)
	if b, err := os.ReadFile(blob); err != nil || !strings.Contains(string(b), "heliotrope") {
		t.Fatalf("stored copy: %v", err)
	}
}

// TestDeletingTheLastSessionFreesTheFile: a file two conversations use stays while one
// of them does; deleting the last one removes its row and its files.
func TestDeletingTheLastSessionFreesTheFile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in, _ := e.attach(t, "shared.txt", lines(5))
	a, b := e.session(t, "blind"), e.session(t, "blind")
	e.srv.Enqueue(llmtest.Reply{Text: "1"}, llmtest.Reply{Text: "2"})
	e.send(t, a.ID, "one", in)
	e.send(t, b.ID, "two", in)
	blob := filepath.Join(e.dir, "attachments", in.ID[:2], in.ID)
	count := func() int {
		var n int
		if err := e.s.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM attachments WHERE id = ?", in.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := e.s.Chat.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blob); err != nil || count() != 1 {
		t.Fatalf("freed while a session still uses it: %v", err)
	}
	if err := e.s.Chat.DeleteSession(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blob); !errors.Is(err, os.ErrNotExist) || count() != 0 {
		t.Fatalf("not freed with the last session: %v, %d rows", err, count())
	}
	if _, err := os.Stat(blob + ".txt"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("extracted text left behind: %v", err)
	}
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImageForAModelWithoutVisionIsRefusedBeforeSending: nothing is stored and no request
// goes out; a vision model gets the image as an image_url part of the user's message.
func TestImageForAModelWithoutVisionIsRefusedBeforeSending(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in, _ := e.attach(t, "dot.png", pngBytes(t))
	blind := e.session(t, "blind")
	_, err := e.s.Chat.Send(ctx, blind.ID, "what is this?", []chat.AttachmentInput{in})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.AttachmentNeedsVision || ae.Params["name"] != "dot.png" || ae.Params["model"] != "blind" {
		t.Fatalf("err = %v", err)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	if snap := e.wait(t, blind.ID); len(snap.Messages) != 0 {
		t.Fatalf("messages stored: %+v", snap.Messages)
	}
	e.srv.Enqueue(llmtest.Reply{Text: "a red dot"})
	req := e.send(t, e.session(t, "seeing").ID, "what is this?", in)
	user := lastUser(req)
	urls := user.ImageURLs()
	if len(urls) != 1 || !strings.HasPrefix(urls[0], "data:image/png;base64,") || !strings.Contains(user.Content, "what is this?") {
		t.Fatalf("image parts %v, content %q", urls, user.Content)
	}
}

// TestBrokenFilesGetTheirErrorAndTheMessageGoesWithout: a corrupt and an encrypted PDF and
// a file over the limit each get their own error naming the file; a message sent with a
// good file and a failed one stores both, the failed one with its error, and tells the
// model what was left out.
func TestBrokenFilesGetTheirErrorAndTheMessageGoesWithout(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cases := []struct {
		name string
		data []byte
		code apperr.Code
	}{
		{"broken.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\ntrailer << /Root 1 0 R >>\n%%EOF"), apperr.DocCorrupt},
		{"locked.pdf", encryptedPDF(), apperr.DocEncrypted},
		{"huge.txt", bytes.Repeat([]byte("a\n"), 11<<20), apperr.AttachmentTooLarge},
		{"fake.png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...), apperr.AttachmentUnreadable},
	}
	var failed []chat.AttachmentInput
	for _, c := range cases {
		_, err := e.s.Files.Put(ctx, c.name, bytes.NewReader(c.data))
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != c.code || ae.Params["name"] != c.name {
			t.Fatalf("%s: err = %v", c.name, err)
		}
		failed = append(failed, chat.AttachmentInput{Name: c.name, Size: int64(len(c.data)), Error: ae})
	}
	if good, err := e.s.Files.Put(ctx, "ok.pdf", bytes.NewReader(textPDF("Quarterly figures are up."))); err != nil || good.Lines == 0 {
		t.Fatalf("a good PDF: %v", err)
	} else {
		failed = append([]chat.AttachmentInput{{ID: good.ID, Name: "ok.pdf"}}, failed...)
	}
	e.srv.Enqueue(llmtest.Reply{Text: "ok"})
	sess := e.session(t, "blind")
	req := e.send(t, sess.ID, "see files", failed...)
	user := lastUser(req)
	if !strings.Contains(user.Content, "Quarterly figures are up.") || !strings.Contains(user.Content, `name="locked.pdf" omitted="true"`) {
		t.Fatalf("model content: %q", user.Content)
	}
	var parts []chat.Part
	for _, p := range e.wait(t, sess.ID).Messages[0].Parts {
		if p.Type == chat.PartAttachment {
			parts = append(parts, p)
		}
	}
	if len(parts) != 5 || parts[0].Attachment.Error != nil || parts[2].Attachment.Error == nil || parts[2].Attachment.Error.Code != apperr.DocEncrypted {
		t.Fatalf("attachment parts: %+v", parts)
	}
}

// textPDF is a one-page PDF showing text in Helvetica, with a correct cross-reference table.
func textPDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 12 Tf 72 700 Td (%s) Tj ET", text)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	return writePDF(objs, "")
}

func writePDF(objs []string, trailerExtra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailerExtra, xref)
	return b.Bytes()
}

// encryptedPDF names a standard security handler whose user password is not empty.
func encryptedPDF() []byte {
	base := textPDF("secret")
	enc := " /Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /P -44 /O <" + strings.Repeat("11", 32) + "> /U <" + strings.Repeat("22", 32) +
		"> >> /ID [<" + strings.Repeat("33", 16) + "> <" + strings.Repeat("33", 16) + ">]"
	return bytes.Replace(base, []byte("/Root 1 0 R >>"), []byte("/Root 1 0 R"+enc+" >>"), 1)
}

// TestExportCarriesAttachmentsToAnotherDataDirectory: a conversation's JSON export holds
// its files; importing it into another data directory stores them there by content and
// links them, so the model reads the file again and deleting the conversation frees it.
func TestExportCarriesAttachmentsToAnotherDataDirectory(t *testing.T) {
	src, dst := newEnv(t), newEnv(t)
	ctx := context.Background()
	in, _ := src.attach(t, "recipe.md", []byte("# Bread\n\nFlour, water, salt, yeast.\n"))
	sess := src.session(t, "blind")
	src.srv.Enqueue(llmtest.Reply{Text: "bake it"})
	src.send(t, sess.ID, "how?", in)
	file, err := transfer.New(src.s.Chat, src.s.Files, src.dir, "test").Export(ctx, sess.ID, "json", transfer.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := transfer.New(dst.s.Chat, dst.s.Files, dst.dir, "test").Import(ctx, "export.json", file.Data)
	if err != nil || rep.Imported != 1 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	imported := rep.Items[0].SessionID
	blob := filepath.Join(dst.dir, "attachments", in.ID[:2], in.ID)
	if _, err := os.Stat(blob); err != nil {
		t.Fatalf("the file did not come along: %v", err)
	}
	if _, err := dst.s.Chat.UpdateSession(ctx, imported, chat.SessionPatch{ProviderID: &dst.prov, Model: ptr("blind")}); err != nil {
		t.Fatal(err)
	}
	dst.srv.Enqueue(llmtest.Reply{Text: "again"})
	req := dst.send(t, imported, "and the salt?")
	if !strings.Contains(req.Messages[0].Content, "Flour, water, salt, yeast.") {
		t.Fatalf("the imported file is not read: %q", req.Messages[0].Content)
	}
	if err := dst.s.Chat.DeleteSession(ctx, imported); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(blob); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("not freed with the imported conversation: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
