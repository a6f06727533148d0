package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// marked is a hit's snippet with its marks in [brackets].
func marked(h SearchHit) string {
	var b strings.Builder
	for _, sp := range h.Snippet {
		if sp.Mark {
			b.WriteString("[" + sp.Text + "]")
		} else {
			b.WriteString(sp.Text)
		}
	}
	return b.String()
}

// TestSearchMessages sends real messages through the loop (the FTS rows come from the
// parts triggers) and searches them in English, Chinese (a two-character word), and a
// mix, with the snippet marks checked.
func TestSearchMessages(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	h.srv.Enqueue(llmtest.Reply{Text: "Goroutines are cheap; use a WaitGroup."}, llmtest.Reply{Text: "数据库连接池已经配置好了。"},
		llmtest.Reply{Text: "Nothing to see."})
	a := h.session(SessionInput{Title: "Go questions"})
	h.send(a.ID, "How do goroutines and channels work together?")
	b := h.session(SessionInput{Title: "数据库"})
	h.send(b.ID, "请帮我看看这个中文问题")
	c := h.session(SessionInput{Title: "Other"})
	h.send(c.ID, "The weather is fine.")

	cases := []struct {
		query   string
		session string
		role    string
		snippet string
	}{
		{"channels", a.ID, RoleUser, "How do goroutines and [channels] work together?"},
		{"WAITGROUP", a.ID, RoleAssistant, "Goroutines are cheap; use a [WaitGroup]."},
		{"goroutines channels", a.ID, RoleUser, "How do [goroutines] and [channels] work together?"},
		{"中文", b.ID, RoleUser, "请帮我看看这个[中文]问题"},
		{"配置", b.ID, RoleAssistant, "数据库连接池已经[配置]好了。"},
		{"weather", c.ID, RoleUser, "The [weather] is fine."},
	}
	for _, tc := range cases {
		res, err := h.svc.SearchMessages(ctx, tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 {
			t.Errorf("%q: %d hits %+v, want 1", tc.query, len(res.Hits), res.Hits)
			continue
		}
		hit := res.Hits[0]
		if hit.SessionID != tc.session || hit.Role != tc.role || marked(hit) != tc.snippet || hit.MessageID == "" {
			t.Errorf("%q: hit %+v snippet %q, want %s %s %q", tc.query, hit, marked(hit), tc.session, tc.role, tc.snippet)
		}
	}
	for _, q := range []string{"go", "中国", "", "  ", `"`, "channels OR weather"} {
		res, err := h.svc.SearchMessages(ctx, q)
		if err != nil || len(res.Hits) != 0 {
			t.Errorf("%q: %+v %v, want no hits", q, res.Hits, err)
		}
	}
}

func TestSnippetWindowAndMarks(t *testing.T) {
	long := strings.Repeat("filler words here ", 20) + "the needle\nis here " + strings.Repeat("more text ", 30)
	cases := []struct {
		name, text string
		terms      []string
		want       string
	}{
		{"whole words only", "go goes go-to", []string{"go"}, "[go] goes [go]-to"},
		{"case folded", "Cairn CAIRN cairn", []string{"cairn"}, "[Cairn] [CAIRN] [cairn]"},
		{"cjk anywhere", "我们的数据库", []string{"数据"}, "我们的[数据]库"},
		{"no match keeps start", "abc", []string{"zzz"}, "abc"},
	}
	for _, tc := range cases {
		if got := marked(SearchHit{Snippet: Snippet(tc.text, tc.terms, 160)}); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	got := marked(SearchHit{Snippet: Snippet(long, []string{"needle"}, 80)})
	if !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") || !strings.Contains(got, "the [needle] is here") || len([]rune(got)) > 90 {
		t.Errorf("long snippet = %q", got)
	}
}

// TestSearchArchivedAndDeleted: an archived conversation is still found (and says so);
// deleting a session removes its index rows.
func TestSearchArchivedAndDeleted(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	h.srv.Enqueue(llmtest.Reply{Text: "Noted."})
	s := h.session(SessionInput{})
	h.send(s.ID, "remember the zeppelin")
	if _, err := h.svc.ArchiveSession(ctx, s.ID, true); err != nil {
		t.Fatal(err)
	}
	res, err := h.svc.SearchMessages(ctx, "zeppelin")
	if err != nil || len(res.Hits) != 1 || !res.Hits[0].Archived {
		t.Fatalf("archived search = %+v %v", res, err)
	}
	ftsRows := func() (n int) {
		if err := h.db.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM message_fts_parts) + (SELECT COUNT(*) FROM message_fts WHERE message_fts MATCH 'zeppelin OR noted')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := ftsRows(); n != 4 { // two parts mapped, two indexed
		t.Fatalf("index rows before delete = %d, want 4", n)
	}
	if err := h.svc.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if n := ftsRows(); n != 0 {
		t.Errorf("index rows after delete = %d, want 0", n)
	}
}

// TestListOrderPinArchiveRename: the list is pinned first, then by last message; a
// rename or a settings change does not move a conversation; archived ones are flagged.
func TestListOrderPinArchiveRename(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	h.srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	var ids []string
	for _, title := range []string{"one", "two", "three"} {
		s := h.session(SessionInput{Title: title})
		h.send(s.ID, "hello "+title)
		ids = append(ids, s.ID)
		time.Sleep(3 * time.Millisecond) // distinct message times
	}
	order := func() (out []string) {
		l, err := h.svc.ListSessions(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range l.Sessions {
			name := s.Title
			if s.Pinned {
				name += "*"
			}
			if s.Archived {
				name += "~"
			}
			out = append(out, name)
		}
		return out
	}
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"by last message", func() error { return nil }, "three two one"},
		{"rename keeps place", func() error { _, err := h.svc.RenameSession(ctx, ids[0], "uno"); return err }, "three two uno"},
		{"settings keep place", func() error {
			_, err := h.svc.UpdateSession(ctx, ids[1], SessionPatch{SystemPrompt: ptr("be brief")})
			return err
		}, "three two uno"},
		{"pin leads", func() error { _, err := h.svc.PinSession(ctx, ids[0], true); return err }, "uno* three two"},
		{"message moves up", func() error { _, err := h.svc.SendMessage(ctx, ids[1], "again"); h.wait(ids[1]); return err }, "uno* two three"},
		{"archive flags", func() error { _, err := h.svc.ArchiveSession(ctx, ids[2], true); return err }, "uno* two three~"},
		{"unpin returns", func() error { _, err := h.svc.PinSession(ctx, ids[0], false); return err }, "two three~ uno"},
		{"restore", func() error { _, err := h.svc.ArchiveSession(ctx, ids[2], false); return err }, "two three uno"},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := strings.Join(order(), " "); got != st.want {
			t.Errorf("%s: order %q, want %q", st.name, got, st.want)
		}
	}
	if _, err := h.svc.PinSession(ctx, "missing", true); err == nil {
		t.Error("pinned a missing session")
	}
}

// TestNewChatReusesEmpty: ReuseEmpty hands back the empty untitled conversation instead
// of another one, and makes a new one once it has a message (or is archived).
func TestNewChatReusesEmpty(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	h.srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	newChat := func(kind string) Session {
		s, err := h.svc.CreateSession(ctx, SessionInput{Kind: kind, ProviderID: h.provider.ID, ReuseEmpty: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := newChat(KindChat)
	if b := newChat(KindChat); b.ID != a.ID {
		t.Fatalf("second New chat made %s, want the empty %s", b.ID, a.ID)
	}
	if task := newChat(KindTask); task.ID == a.ID {
		t.Fatal("a new task reused an empty chat")
	}
	h.send(a.ID, "hi")
	c := newChat(KindChat)
	if c.ID == a.ID {
		t.Fatal("reused a conversation with messages")
	}
	if _, err := h.svc.ArchiveSession(ctx, c.ID, true); err != nil {
		t.Fatal(err)
	}
	if d := newChat(KindChat); d.ID == c.ID {
		t.Fatal("reused an archived conversation")
	}
	time.Sleep(3 * time.Millisecond) // a later creation time than the one before
	plain, err := h.svc.CreateSession(ctx, SessionInput{ProviderID: h.provider.ID})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := h.svc.ListSessions(ctx, "")
	if len(l.Sessions) != 5 || l.Sessions[0].ID != plain.ID {
		t.Errorf("list = %d sessions, first %s; want 5, first %s", len(l.Sessions), l.Sessions[0].ID, plain.ID)
	}
}
