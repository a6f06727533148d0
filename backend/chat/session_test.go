package chat

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

func TestSessionCRUD(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	sub := h.bus.Subscribe(256)
	defer sub.Close()
	temp := 0.3
	a, err := h.svc.CreateSession(ctx, SessionInput{Kind: KindTask, Title: "Fix the build\n", ProviderID: h.provider.ID, Model: "fake-model",
		Temperature: &temp, Toolsets: []string{"sandbox", "web", "web"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind != KindTask || a.Title != "Fix the build" || !slices.Equal(a.Toolsets, []string{"sandbox", "web"}) || *a.Temperature != 0.3 || a.State != StateIdle {
		t.Fatalf("session = %+v", a)
	}
	ev := <-sub.C
	if ev.Topic != events.TopicSessions || ev.Type != EventSessionsUpserted {
		t.Fatalf("event = %+v", ev)
	}
	// A new session without a provider continues with the last used one.
	b, err := h.svc.CreateSession(ctx, SessionInput{Title: "100% of_it"})
	if err != nil || b.ProviderID != h.provider.ID || b.Model != "fake-model" || b.Kind != KindChat {
		t.Fatalf("defaults: %+v %v", b, err)
	}
	for _, bad := range []SessionInput{{Kind: "nope"}, {Toolsets: []string{"rm-rf"}}, {Temperature: ptr(3.0)}, {ProviderID: "missing"}} {
		if _, err := h.svc.CreateSession(ctx, bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}

	list, err := h.svc.ListSessions(ctx, "")
	if err != nil || len(list.Sessions) != 2 || list.Seq == 0 {
		t.Fatalf("list = %+v %v", list, err)
	}
	for q, want := range map[string]int{"fix": 1, "100%": 1, "of_": 1, "%": 1, "_": 1, "zzz": 0, "  ": 2} {
		l, _ := h.svc.ListSessions(ctx, q)
		if len(l.Sessions) != want {
			t.Errorf("search %q: %d sessions, want %d", q, len(l.Sessions), want)
		}
	}

	r, err := h.svc.RenameSession(ctx, a.ID, "  Renamed \t title ")
	if err != nil || r.Title != "Renamed title" {
		t.Fatalf("rename: %+v %v", r, err)
	}
	up, err := h.svc.UpdateSession(ctx, a.ID, SessionPatch{ResetTemperature: true, Toolsets: &[]string{"kb"}, SystemPrompt: ptr("Be careful.")})
	if err != nil || up.Temperature != nil || !slices.Equal(up.Toolsets, []string{"kb"}) || up.SystemPrompt != "Be careful." || up.Title != "Renamed title" {
		t.Fatalf("update: %+v %v", up, err)
	}
	empty := ""
	up, err = h.svc.UpdateSession(ctx, a.ID, SessionPatch{ProviderID: &empty})
	if err != nil || up.ProviderID != "" || up.Model != "" {
		t.Fatalf("clearing the provider clears the model: %+v %v", up, err)
	}
	snap, err := h.svc.GetSession(ctx, a.ID)
	if err != nil || snap.Session.SystemPrompt != "Be careful." || len(snap.Messages) != 0 || snap.Seq == 0 {
		t.Fatalf("snapshot: %+v %v", snap, err)
	}

	if err := h.svc.DeleteSession(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.GetSession(ctx, a.ID); !apperr.Is(err, apperr.SessionNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := h.svc.SendMessage(ctx, a.ID, "x"); !apperr.Is(err, apperr.SessionNotFound) {
		t.Fatalf("send to deleted: %v", err)
	}
	if err := h.svc.DeleteSession(ctx, a.ID); !apperr.Is(err, apperr.SessionNotFound) {
		t.Fatalf("double delete: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestSendValidationAndBusy(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	if _, err := h.svc.SendMessage(ctx, sess.ID, "  \n"); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("empty: %v", err)
	}
	h.srv.Enqueue(llmtest.Reply{Text: strings.Repeat("x", 50), ChunkRunes: 1, Delay: 10 * time.Millisecond})
	if _, err := h.svc.SendMessage(ctx, sess.ID, "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, sess.ID, "second"); !apperr.Is(err, apperr.SessionBusy) {
		t.Fatalf("concurrent send: %v", err)
	}
	if _, err := h.svc.Regenerate(ctx, sess.ID); !apperr.Is(err, apperr.SessionBusy) {
		t.Fatalf("concurrent regenerate: %v", err)
	}
	// Deleting a streaming session stops it first.
	if err := h.svc.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if h.svc.State(sess.ID) != StateIdle {
		t.Fatal("still running after delete")
	}

	// Without a usable provider the send fails at once and stores nothing.
	other := h.session(SessionInput{})
	if err := h.providers.Delete(ctx, h.provider.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, other.ID, "hello"); !apperr.Is(err, apperr.NoProvider) {
		t.Fatalf("no provider: %v", err)
	}
	snap, _ := h.svc.GetSession(ctx, other.ID)
	if len(snap.Messages) != 0 || snap.State != StateIdle {
		t.Fatalf("a failed send left messages: %+v", snap.Messages)
	}
}

// TestRegenerateAndEditBranch: regenerate and edit-and-resend add versions beside the
// earlier ones; the new one is the path (what the next request sends), the old ones stay
// stored and are selected again with their own continuation.
func TestRegenerateAndEditBranch(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "answer to " + r.Body.LastMessage().Content + " #" + string(rune('0'+len(r.Body.Messages)))}
	})
	h.send(sess.ID, "one")
	_, snap := h.send(sess.ID, "two")
	if len(snap.Messages) != 4 {
		t.Fatalf("messages = %d", len(snap.Messages))
	}
	oldAnswer := snap.Messages[3].ID

	res, err := h.svc.Regenerate(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	snap = h.wait(sess.ID)
	if res.UserMessageID != "" || !slices.Equal(res.HiddenMessageIDs, []string{oldAnswer}) || len(snap.Messages) != 4 || snap.Messages[3].ID != res.AssistantMessageID {
		t.Fatalf("regenerate: %+v / %d messages", res, len(snap.Messages))
	}
	if got := snap.Messages[3].SiblingIDs; !slices.Equal(got, []string{oldAnswer, res.AssistantMessageID}) {
		t.Fatalf("versions of the answer = %v", got)
	}
	if snap.Messages[3].ParentID != snap.Messages[2].ID {
		t.Fatalf("regenerated answer follows %q, want %q", snap.Messages[3].ParentID, snap.Messages[2].ID)
	}
	if got := h.contents(2); !slices.Equal(got, []string{"user:one", "assistant:answer to one #1", "user:two"}) {
		t.Fatalf("regenerate request = %v", got)
	}

	first := snap.Messages[0].ID
	if _, err := h.svc.EditAndResend(ctx, sess.ID, snap.Messages[1].ID, "x"); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("editing an answer: %v", err)
	}
	if _, err := h.svc.EditAndResend(ctx, sess.ID, "nope", "x"); !apperr.Is(err, apperr.MessageNotFound) {
		t.Fatalf("editing a missing message: %v", err)
	}
	sub := h.bus.Subscribe(256)
	defer sub.Close()
	res, err = h.svc.EditAndResend(ctx, sess.ID, first, "uno")
	if err != nil {
		t.Fatal(err)
	}
	oldPath := snap.Messages
	snap = h.wait(sess.ID)
	if res.EditMode != "branch" || len(res.HiddenMessageIDs) != 4 || len(snap.Messages) != 2 || snap.Messages[0].Parts[0].Text != "uno" {
		t.Fatalf("edit: %+v, messages %+v", res, snap.Messages)
	}
	if got := snap.Messages[0].SiblingIDs; !slices.Equal(got, []string{first, res.UserMessageID}) {
		t.Fatalf("versions of the question = %v", got)
	}
	if got := h.srv.Requests()[3].Body.Messages; len(got) != 1 || got[0].Content != "uno" {
		t.Fatalf("edit request = %+v", got)
	}
	ev := <-sub.C
	if ev.Type != EventMessagesHidden {
		t.Fatalf("first event after edit = %s", ev.Type)
	}
	var hid MessagesHidden
	_ = json.Unmarshal(ev.Data, &hid)
	if len(hid.MessageIDs) != 4 {
		t.Fatalf("hidden = %+v", hid)
	}

	// The old question is selected again with everything that followed it, the
	// regenerated answer still chosen; the next send goes on from there.
	back, err := h.svc.SelectBranch(ctx, sess.ID, first)
	if err != nil {
		t.Fatal(err)
	}
	if ids(back.Messages) != ids(oldPath) {
		t.Fatalf("selected path = %s, want %s", ids(back.Messages), ids(oldPath))
	}
	h.send(sess.ID, "three")
	if got := h.contents(4); len(got) != 5 || got[3] != "assistant:answer to two #3" || got[4] != "user:three" {
		t.Fatalf("request after selecting = %v", got)
	}
	// The first answer to "two" is selected from its sibling; its own (empty)
	// continuation is the path now.
	back, err = h.svc.SelectBranch(ctx, sess.ID, oldAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Messages) != 4 || back.Messages[3].ID != oldAnswer {
		t.Fatalf("after selecting the first answer: %s", ids(back.Messages))
	}
	if _, err := h.svc.SelectBranch(ctx, sess.ID, "nope"); !apperr.Is(err, apperr.MessageNotFound) {
		t.Fatalf("selecting a missing message: %v", err)
	}
	tr, err := h.svc.Transcript(ctx, sess.ID)
	if err != nil || len(tr.Messages) != 9 {
		t.Fatalf("transcript keeps %d messages (%v), want 9", len(tr.Messages), err)
	}
	// Regenerate on a session without user messages says so.
	empty := h.session(SessionInput{})
	if _, err := h.svc.Regenerate(ctx, empty.ID); !apperr.Is(err, apperr.MessageNotFound) {
		t.Fatalf("regenerate empty: %v", err)
	}
}

// contents is request i's messages as role:content.
func (h *harness) contents(i int) []string {
	var out []string
	for _, m := range h.srv.Requests()[i].Body.Messages {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

func ids(msgs []Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID)
	}
	return strings.Join(out, ",")
}

// TestPartsAreWrittenWhileStreaming reads the database (not the in-memory snapshot)
// during a slow answer: the text part grows there before the answer ends.
func TestPartsAreWrittenWhileStreaming(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Text: strings.Repeat("abc ", 100), ChunkRunes: 4, Delay: 10 * time.Millisecond})
	res, err := h.svc.SendMessage(ctx, sess.ID, "slowly")
	if err != nil {
		t.Fatal(err)
	}
	var lengths []int
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && h.svc.State(sess.ID) != StateIdle {
		var n int
		var status string
		err := h.db.QueryRowContext(ctx, "SELECT COALESCE(SUM(LENGTH(p.text)), 0), m.status FROM messages m LEFT JOIN parts p ON p.message_id = m.id WHERE m.id = ?", res.AssistantMessageID).Scan(&n, &status)
		if err != nil {
			t.Fatal(err)
		}
		if status == MessageStreaming && n > 0 && (len(lengths) == 0 || lengths[len(lengths)-1] != n) {
			lengths = append(lengths, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(lengths) < 3 {
		t.Fatalf("text reached the database only %d times while streaming: %v", len(lengths), lengths)
	}
	snap := h.wait(sess.ID)
	if last(snap).Parts[0].Text != strings.Repeat("abc ", 100) {
		t.Fatal("final text incomplete")
	}
}

func TestRecoveryMarksDeadProcessesInterrupted(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	sess := h.session(SessionInput{})
	h.srv.Enqueue(llmtest.Reply{Text: "complete answer"})
	_, before := h.send(sess.ID, "before")
	parent := last(before).ID

	dead := exec.Command(os.Args[0], "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	alive := exec.Command(os.Args[0], "-test.run=^TestHelperProcessSleeps$")
	alive.Env = append(os.Environ(), "CAIRN_HELPER_SLEEP=1")
	if err := alive.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = alive.Process.Kill(); _ = alive.Wait() }()
	now := time.Now().UnixMilli()
	insert := func(id string, seq int, owner pidcheck.Owner) {
		t.Helper()
		if err := insertMessage(ctx, h.db, Message{ID: id, SessionID: sess.ID, Seq: seq, Role: RoleAssistant, Status: MessageStreaming, ParentID: parent, CreatedAt: now, UpdatedAt: now}, owner); err != nil {
			t.Fatal(err)
		}
		parent = id
		if err := insertPart(ctx, h.db, Part{ID: id + "p", MessageID: id, Type: PartText, State: PartStreaming, Text: "half an ans", CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	ownerOf := func(pid int) pidcheck.Owner {
		st, _ := pidcheck.StartTime(pid)
		return pidcheck.Owner{PID: pid, Start: st}
	}
	insert("crashed", 10, ownerOf(dead.Process.Pid))
	insert("elsewhere", 11, ownerOf(alive.Process.Pid))
	// A process that died after the PID went to another (live) one that started later.
	other := ownerOf(alive.Process.Pid)
	insert("reused", 12, pidcheck.Owner{PID: other.PID, Start: other.Start - 1})
	insert("older row", 13, pidcheck.Owner{PID: alive.Process.Pid})

	svc2, err := New(ctx, Config{DB: h.db, Bus: h.bus, Models: h.providers})
	if err != nil {
		t.Fatal(err)
	}
	defer svc2.Close()
	snap, err := svc2.GetSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Message{}
	for _, m := range snap.Messages {
		byID[m.ID] = m
	}
	for _, id := range []string{"crashed", "reused"} {
		if m := byID[id]; m.Status != MessageInterrupted || m.Parts[0].Text != "half an ans" || m.Parts[0].State != PartDone {
			t.Fatalf("%s message = %+v", id, m)
		}
	}
	for _, id := range []string{"elsewhere", "older row"} {
		if m := byID[id]; m.Status != MessageStreaming {
			t.Fatalf("a live process's message (%s) was touched: %+v", id, m)
		}
	}
	if len(snap.Messages) != 6 || byID[snap.Messages[1].ID].Status != MessageComplete {
		t.Fatalf("earlier messages changed: %+v", snap.Messages)
	}
	// When that process dies, opening the session notices.
	_ = alive.Process.Kill()
	_ = alive.Wait()
	snap, _ = svc2.GetSession(ctx, sess.ID)
	if last(snap).Status != MessageInterrupted {
		t.Fatalf("after the other process died: %s", last(snap).Status)
	}
}

// TestHelperProcessSleeps is the live "other process" of the recovery test; run normally
// it returns at once.
func TestHelperProcessSleeps(t *testing.T) {
	if os.Getenv("CAIRN_HELPER_SLEEP") == "1" {
		time.Sleep(time.Minute)
	}
}

func TestBuildHistory(t *testing.T) {
	tp := func(round int, typ PartType, text string, tool *ToolInfo) Part {
		return Part{Round: round, Type: typ, Text: text, Tool: tool}
	}
	msgs := []Message{
		{Role: RoleUser, Parts: []Part{tp(0, PartText, "q1", nil)}},
		{Role: RoleAssistant, Status: MessageInterrupted, Parts: []Part{
			tp(0, PartReasoning, "hmm", nil),
			tp(0, PartText, "calling", nil),
			tp(0, PartToolCall, "", &ToolInfo{CallID: "a", Name: "t1", Arguments: "{}"}),
			tp(0, PartToolCall, "", &ToolInfo{CallID: "b", Name: "t2", Arguments: "{}"}),
			tp(0, PartToolResult, "", &ToolInfo{CallID: "a", Name: "t1", Content: "A"}),
			tp(1, PartText, "partial fin", nil),
		}},
		{Role: RoleUser, Parts: []Part{tp(0, PartText, "q2", nil)}},
		{Role: RoleAssistant, Status: MessageError, Parts: []Part{tp(0, PartStatus, "", nil)}},
		{Role: RoleUser, Parts: []Part{tp(0, PartText, "q3", nil)}},
	}
	got := buildHistory(context.Background(), msgs, nil)
	var flat []string
	for _, m := range got {
		s := m.Role + ":" + m.Content
		for _, c := range m.ToolCalls {
			s += "[" + c.ID + "]"
		}
		if m.ToolCallID != "" {
			s += "<" + m.ToolCallID
		}
		flat = append(flat, s)
	}
	want := []string{"user:q1", "assistant:calling[a][b]", "tool:A<a", "tool:The tool call was interrupted before it finished.<b",
		"assistant:partial fin", "user:q2", "user:q3"}
	if !slices.Equal(flat, want) {
		t.Fatalf("history:\n%v\nwant\n%v", flat, want)
	}
}

func TestNewSessionsGetDefaultToolsets(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	tests := []struct {
		name string
		in   SessionInput
		want []string
	}{
		{"chat names none", SessionInput{Kind: KindChat}, []string{"mcp"}},
		{"task names none", SessionInput{Kind: KindTask}, []string{"mcp", "sandbox"}},
		{"explicit empty list means no tools", SessionInput{Kind: KindChat, Toolsets: []string{}}, []string{}},
		{"explicit list kept", SessionInput{Kind: KindChat, Toolsets: []string{"web"}}, []string{"web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := h.svc.CreateSession(ctx, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Toolsets, tt.want) {
				t.Fatalf("toolsets = %v, want %v", s.Toolsets, tt.want)
			}
		})
	}
}

// TestConversationParameters: a conversation's top-p and answer length reach the request,
// and only as many earlier messages as it allows are sent besides the question; values no
// provider takes are refused.
func TestConversationParameters(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	topP := 0.5
	sess := h.session(SessionInput{TopP: &topP, MaxTokens: 256, ContextMessages: 2})
	h.srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h.send(sess.ID, "one")
	h.send(sess.ID, "two")
	h.send(sess.ID, "three")
	body := h.srv.Requests()[2].Body
	if body.TopP == nil || *body.TopP != 0.5 || body.MaxTokens != 256 {
		t.Fatalf("request top_p %v max_tokens %d", body.TopP, body.MaxTokens)
	}
	if got := h.contents(2); !slices.Equal(got, []string{"user:two", "assistant:ok", "user:three"}) {
		t.Fatalf("sent with a limit of 2 = %v", got)
	}
	all, reset := 0, true
	if _, err := h.svc.UpdateSession(ctx, sess.ID, SessionPatch{ContextMessages: &all, ResetTopP: reset}); err != nil {
		t.Fatal(err)
	}
	h.send(sess.ID, "four")
	body = h.srv.Requests()[3].Body
	if body.TopP != nil || len(h.contents(3)) != 7 {
		t.Fatalf("after the reset: top_p %v, %d messages", body.TopP, len(h.contents(3)))
	}
	bad := 1.5
	tooMany := -1
	for name, p := range map[string]SessionPatch{"top-p": {TopP: &bad}, "max tokens": {MaxTokens: &tooMany}, "earlier messages": {ContextMessages: &tooMany}} {
		if _, err := h.svc.UpdateSession(ctx, sess.ID, p); !apperr.Is(err, apperr.InvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	got, _ := h.svc.GetSession(ctx, sess.ID)
	if got.Session.TopP != nil || got.Session.MaxTokens != 256 || got.Session.ContextMessages != 0 {
		t.Fatalf("stored %+v", got.Session)
	}
}
