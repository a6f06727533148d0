package transfer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
)

// TestImportChatGPT: the chosen branch (current_node back to the root) becomes the
// conversation, hidden system messages are left out, thoughts become reasoning, code sent
// to a tool a call with its output as the result; conversations without messages or with
// a broken tree are reported as skipped with their reason.
func TestImportChatGPT(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("testdata/chatgpt.json")
	if err != nil {
		t.Fatal(err)
	}
	d := newDir(t)
	rep, err := d.tr.Import(ctx, "conversations.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Source != "chatgpt" || rep.Imported != 1 || rep.Skipped != 2 {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range []struct{ status, reason string }{{StatusImported, ""}, {StatusSkipped, ReasonEmpty}, {StatusSkipped, ReasonMalformed}} {
		if it := rep.Items[i]; it.Status != want.status || it.Reason != want.reason {
			t.Errorf("item %d: %+v, want %v", i, it, want)
		}
	}
	snap, err := d.chat.GetSession(ctx, rep.Items[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Session.Title != "Fibonacci" || snap.Session.CreatedAt != 1_700_000_000_500 || len(snap.Messages) != 2 {
		t.Fatalf("session %+v, %d messages", snap.Session, len(snap.Messages))
	}
	u, a := snap.Messages[0], snap.Messages[1]
	if u.Role != chat.RoleUser || u.Parts[0].Text != "Compute fib(10)" {
		t.Fatalf("user %+v", u)
	}
	var types []chat.PartType
	for _, p := range a.Parts {
		types = append(types, p.Type)
	}
	want := []chat.PartType{chat.PartReasoning, chat.PartToolCall, chat.PartToolResult, chat.PartText}
	if len(types) != len(want) {
		t.Fatalf("parts %v", types)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("parts %v, want %v", types, want)
		}
	}
	if a.Model != "o3" || a.Parts[1].Tool.Arguments != "print(55)" || a.Parts[2].Tool.Content != "55" ||
		a.Parts[2].Tool.CallID != a.Parts[1].Tool.CallID || a.Parts[3].Text != "fib(10) = 55" || a.Parts[0].Text != "Plan\n\nUse Python." {
		t.Fatalf("answer %+v", a.Parts)
	}
}

// TestImportRefusesMalformed: a file that cannot be read as a whole is refused with
// import_invalid (or import_newer_format) and stores nothing, not even the conversations
// before the fault.
func TestImportRefusesMalformed(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, data string
		code       apperr.Code
	}{
		{"not json", "hello", apperr.ImportInvalid},
		{"truncated", `[{"title":"a","mapping":{`, apperr.ImportInvalid},
		{"other json", `{"foo": 1}`, apperr.ImportInvalid},
		{"array of other things", `[1, 2]`, apperr.ImportInvalid},
		{"newer", `{"format":"cairn.conversations","version":99,"conversations":[]}`, apperr.ImportNewerFormat},
		{"zip without conversations", "PK\x03\x04garbage", apperr.ImportInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDir(t)
			_, err := d.tr.Import(ctx, "x.json", []byte(tc.data))
			if !apperr.Is(err, tc.code) {
				t.Fatalf("err %v, want %s", err, tc.code)
			}
			var n int
			if err := d.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM messages) + (SELECT COUNT(*) FROM parts)").Scan(&n); err != nil || n != 0 {
				t.Fatalf("stored %d rows (%v)", n, err)
			}
		})
	}
}

// TestImportAllOrNothing: when the second conversation cannot be stored (its image
// cannot be written), the first is not stored either and its files are removed.
func TestImportAllOrNothing(t *testing.T) {
	ctx := context.Background()
	a := newDir(t)
	seed(t, a)
	plain := chat.Transcript{Session: chat.Session{ID: "aaa", Kind: chat.KindChat, Title: "plain"},
		Messages: []chat.Message{{ID: "ma", Role: chat.RoleUser, Status: chat.MessageComplete, Parts: []chat.Part{{ID: "pa", Type: chat.PartText, Text: "hi"}}}}}
	if _, err := a.chat.Import(ctx, []chat.Transcript{plain}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := a.tr.ExportAll(ctx, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := newDir(t)
	// tool-results can be made; tool-images is a file, so the image cannot be written.
	if err := os.WriteFile(filepath.Join(b.dir, "tool-images"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.tr.Import(ctx, f.Name, f.Data); err == nil {
		t.Fatal("import succeeded")
	}
	var n int
	if err := b.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM messages) + (SELECT COUNT(*) FROM parts)").Scan(&n); err != nil || n != 0 {
		t.Fatalf("stored %d rows (%v)", n, err)
	}
	left, _ := filepath.Glob(filepath.Join(b.dir, "tool-results", "*", "*"))
	if len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
}

// TestImportClaude: Claude's export (a flat list of messages with content blocks) keeps
// its turns, thinking as reasoning and tool uses paired with their results.
func TestImportClaude(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("testdata/claude.json")
	if err != nil {
		t.Fatal(err)
	}
	d := newDir(t)
	rep, err := d.tr.Import(ctx, "conversations.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Source != "claude" || rep.Imported != 1 || rep.Skipped != 1 || rep.Items[1].Reason != ReasonEmpty {
		t.Fatalf("report %+v", rep)
	}
	snap, err := d.chat.GetSession(ctx, rep.Items[0].SessionID)
	if err != nil || snap.Session.Title != "Weather in Oslo" || len(snap.Messages) != 2 {
		t.Fatalf("%+v %v", snap, err)
	}
	a := snap.Messages[1].Parts
	if len(a) != 4 || a[0].Text != "Search the web." || a[1].Tool.Arguments != `{"query": "Oslo weather"}` ||
		a[2].Tool.CallID != "toolu_1" || a[2].Tool.Content != "Oslo: 3°C, snow" || a[3].Text != "It is 3°C and snowing." {
		t.Fatalf("answer %+v", a)
	}
	if snap.Messages[0].CreatedAt != 1_772_359_200_000 {
		t.Fatalf("time %d", snap.Messages[0].CreatedAt)
	}
}
