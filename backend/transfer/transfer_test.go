package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
	"github.com/cairn-app/cairn/backend/tools"
)

// dataDir is a real data directory: SQLite with every migration and the chat service.
type dataDir struct {
	dir  string
	db   *store.DB
	chat *chat.Service
	tr   *Service
}

func openDir(t *testing.T, dir string) *dataDir {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chat.New(ctx, chat.Config{DB: db, Bus: events.NewBus()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); db.Close() })
	return &dataDir{dir: dir, db: db, chat: c, tr: New(c, nil, dir, "Cairn test")}
}

func newDir(t *testing.T) *dataDir { return openDir(t, t.TempDir()) }

// seed stores a conversation with reasoning, a tool call with an image and a spilled
// result (files on disk, as the pipeline leaves them), an error and a second turn.
func seed(t *testing.T, d *dataDir) chat.Session {
	t.Helper()
	sid := "sess0001"
	img := filepath.Join(d.dir, "tool-images", sid, "shot.png")
	spill := filepath.Join(d.dir, "tool-results", sid, "call1.txt")
	for p, b := range map[string][]byte{img: {0x89, 'P', 'N', 'G', 1, 2, 3}, spill: []byte("a very long result")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	temp := 0.4
	at := int64(1_767_000_000_000)
	part := func(id string, typ chat.PartType) chat.Part {
		return chat.Part{ID: id, Type: typ, State: chat.PartDone, CreatedAt: at, UpdatedAt: at}
	}
	text := part("p1", chat.PartText)
	text.Text = "Take a screenshot of `example.com`"
	reason := part("p2", chat.PartReasoning)
	reason.Text = "The user wants a screenshot."
	call := part("p3", chat.PartToolCall)
	call.Tool = &chat.ToolInfo{CallID: "call1", Name: "browser__shot", Arguments: `{"url":"https://example.com"}`, ToolRef: tools.ToolRef{Namespace: "browser", Title: "shot"}}
	res := part("p4", chat.PartToolResult)
	res.Tool = &chat.ToolInfo{CallID: "call1", Name: "browser__shot", Content: "saved ```x```", SpillPath: spill, Size: 18,
		Images: []tools.ImageRef{{File: "shot.png", Path: img, MIMEType: "image/png", Bytes: 7, Width: 1, Height: 1, SHA256: "abc"}}}
	answer := part("p5", chat.PartText)
	answer.Text = "Here it is."
	older := part("p6", chat.PartText)
	older.Text = "An earlier version of the answer."
	edit := part("p7", chat.PartText)
	edit.Text = "An edited question on its own branch."
	ts := []chat.Transcript{{
		Session: chat.Session{ID: sid, Kind: chat.KindChat, Title: "Shots / 截图", SystemPrompt: "Be brief.", Temperature: &temp,
			Toolsets: []string{"web"}, CreatedAt: at, UpdatedAt: at + 5, ChosenRootID: "m1"},
		// Branches: m0 is an earlier version of the answer m2 (m1 chose m2), m3 an edit
		// of the question m1 (the session chose m1).
		Messages: []chat.Message{
			{ID: "m1", Role: chat.RoleUser, Status: chat.MessageComplete, CreatedAt: at, UpdatedAt: at, Parts: []chat.Part{text}, ChosenChildID: "m2"},
			{ID: "m0", ParentID: "m1", Role: chat.RoleAssistant, Status: chat.MessageComplete, CreatedAt: at + 1, UpdatedAt: at + 1, Parts: []chat.Part{older}},
			{ID: "m2", ParentID: "m1", Role: chat.RoleAssistant, Status: chat.MessageComplete, Model: "gpt-x", FinishReason: "stop", CreatedAt: at + 1, UpdatedAt: at + 2,
				Error: apperr.New(apperr.Internal, "late"), Parts: []chat.Part{reason, call, res, answer}},
			{ID: "m3", Role: chat.RoleUser, Status: chat.MessageComplete, CreatedAt: at + 3, UpdatedAt: at + 3, Parts: []chat.Part{edit}},
		},
	}}
	out, err := d.chat.Import(context.Background(), ts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// withoutTime drops the export time, the one field two exports of the same data differ in.
func withoutTime(t *testing.T, b []byte) Document {
	t.Helper()
	var doc Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc.ExportedAt = 0
	return doc
}

// TestJSONRoundTrip: a conversation with reasoning, a tool call, its image and spilled
// result exported as JSON and imported into a new data directory exports the same JSON,
// and the files are in the new directory.
func TestJSONRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := newDir(t)
	sess := seed(t, a)
	first, err := a.tr.Export(ctx, sess.ID, FormatJSON, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := newDir(t)
	rep, err := b.tr.Import(ctx, first.Name, first.Data)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 1 || rep.Items[0].SessionID != sess.ID || rep.Source != "cairn" {
		t.Fatalf("report %+v", rep)
	}
	second, err := b.tr.Export(ctx, sess.ID, FormatJSON, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, y := withoutTime(t, first.Data), withoutTime(t, second.Data)
	xj, _ := json.Marshal(x)
	yj, _ := json.Marshal(y)
	if !bytes.Equal(xj, yj) {
		t.Fatalf("round trip changed the conversation:\n%s\n%s", xj, yj)
	}
	if len(x.Conversations[0].Files) != 2 {
		t.Fatalf("files %v", x.Conversations[0].Files)
	}
	if c := y.Conversations[0]; len(c.Messages) != 4 || c.Session.ChosenRootID != "m1" || c.Messages[0].ChosenChildID != "m2" || c.Messages[1].ParentID != "m1" {
		t.Fatalf("branches after the round trip: %+v", c)
	}
	snap, _ := b.chat.GetSession(ctx, sess.ID)
	got, err := os.ReadFile(snap.Messages[1].Parts[2].Tool.Images[0].Path)
	if err != nil || !strings.HasPrefix(snap.Messages[1].Parts[2].Tool.Images[0].Path, b.dir) || string(got[1:4]) != "PNG" {
		t.Fatalf("image %q %v", got, err)
	}
	// Importing it again keeps both: the second copy gets new ids.
	rep, err = b.tr.Import(ctx, first.Name, first.Data)
	if err != nil || rep.Imported != 1 || rep.Items[0].SessionID == sess.ID {
		t.Fatalf("second import %+v %v", rep, err)
	}
	list, _ := b.chat.ListSessions(ctx, "")
	if len(list.Sessions) != 2 {
		t.Fatalf("sessions %d", len(list.Sessions))
	}
}

// TestMarkdown: a heading per turn along the chosen path (with which version it is),
// tool calls collapsed with their arguments and result,
// reasoning only when asked for, fences longer than the backticks inside.
func TestMarkdown(t *testing.T) {
	ctx := context.Background()
	a := newDir(t)
	sess := seed(t, a)
	for _, tc := range []struct {
		name      string
		opt       ExportOptions
		want, not []string
	}{
		{"plain", ExportOptions{}, []string{"# Shots / 截图\n", "## You · 2025-12-29", "## Assistant (gpt-x) ·", "<details>\n<summary>Tool: shot</summary>",
			"````\nsaved ```x```\n````", "```json\n{\"url\":\"https://example.com\"}\n```", "Here it is.", "> **System prompt:** Be brief.", " UTC · 1/2\n", " UTC · 2/2\n"},
			[]string{"Reasoning", "The user wants", "An earlier version", "An edited question"}},
		{"reasoning", ExportOptions{Reasoning: true}, []string{"<summary>Reasoning</summary>\n\nThe user wants a screenshot."}, nil},
		{"labels", ExportOptions{Labels: Labels{User: "你", Assistant: "助手"}}, []string{"## 你 ·", "## 助手 (gpt-x)"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := a.tr.Export(ctx, sess.ID, FormatMarkdown, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			md := string(f.Data)
			for _, w := range tc.want {
				if !strings.Contains(md, w) {
					t.Errorf("missing %q in\n%s", w, md)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(md, n) {
					t.Errorf("has %q", n)
				}
			}
			if f.Name != "Shots-截图-sess0001.md" {
				t.Errorf("name %q", f.Name)
			}
		})
	}
	if _, err := a.tr.Export(ctx, sess.ID, "pdf", ExportOptions{}); !apperr.Is(err, apperr.ExportFormatUnknown) {
		t.Fatalf("pdf: %v", err)
	}
}

// TestExportAllZip: the zip holds conversations.json, which imports back, and one
// Markdown file per conversation.
func TestExportAllZip(t *testing.T) {
	ctx := context.Background()
	a := newDir(t)
	seed(t, a)
	f, err := a.tr.ExportAll(ctx, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(f.Data, []byte("PK")) || !bytes.Contains(f.Data, []byte("markdown/Shots-")) {
		t.Fatalf("not the zip expected")
	}
	b := newDir(t)
	rep, err := b.tr.Import(ctx, f.Name, f.Data)
	if err != nil || rep.Imported != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
}

// TestMain makes scrypt cheap for the tests (the cost is written into each backup, so
// opening reads what sealing used).
func TestMain(m *testing.M) {
	scryptN = 1 << 10
	os.Exit(m.Run())
}
