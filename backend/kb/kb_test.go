package kb

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

const english = `# Gardening notes

Tomatoes need full sun and regular watering. Prune the suckers weekly.

## Pests

Aphids are controlled with soapy water; ladybirds eat them too.`

const chinese = `# 数据库笔记

向量数据库用于存储嵌入向量，并按相似度检索。

## 索引

倒排索引让关键词检索很快。知识库把文件切成小块再建立索引。`

func TestKeywordSearchEnglishAndChinese(t *testing.T) {
	f := newFixture(t, nil)
	k := f.create("notes", "")
	ctx := context.Background()
	if _, err := f.svc.AddText(ctx, k.Name, "garden.md", english); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddText(ctx, k.Name, "数据库.md", chinese); err != nil {
		t.Fatal(err)
	}
	f.idle()
	cases := []struct {
		query, want string
	}{
		{"aphids", "garden.md"},
		{"Tomatoes SUN", "garden.md"},
		{"the tomatoes", "garden.md"},     // stopword dropped
		{"ladybirds OR \"x", "garden.md"}, // FTS5 syntax is quoted away
		{"索引", "数据库.md"},                  // a two-character Chinese word
		{"向量数据库", "数据库.md"},
		{"知识库 检索", "数据库.md"},
		{"库", "数据库.md"}, // one character, at the end of a run
	}
	for _, c := range cases {
		hits := f.search(k.Name, c.query)
		if len(hits) == 0 || hits[0].File != c.want {
			t.Errorf("search %q: got %v, want %s first", c.query, files(hits), c.want)
		}
	}
	// no chunk has both words: the OR query fills up with each
	if got := files(f.search(k.Name, "aphids 向量")); !slices.Contains(got, "garden.md") || !slices.Contains(got, "数据库.md") {
		t.Errorf("search aphids 向量: got %v", got)
	}
	if hits := f.search(k.Name, "elephants"); len(hits) != 0 {
		t.Errorf("search elephants: got %v", files(hits))
	}
	h := f.search(k.Name, "倒排索引")[0]
	if h.Heading == "" || !strings.Contains(h.Snippet, "倒排索引") || h.LineStart == 0 {
		t.Errorf("hit lacks position or snippet: %+v", h)
	}
}

func TestMatchExprs(t *testing.T) {
	cases := []struct {
		q    string
		want []string
	}{
		{"hello", []string{`text:"hello"`}},
		{"Hello World", []string{`text:"hello" AND text:"world"`, `text:"hello" OR text:"world"`}},
		{"the", []string{`text:"the"`}},
		{`a"b) OR NEAR(`, []string{`text:"b" AND text:"near"`, `text:"b" OR text:"near"`}},
		{"中文", []string{`cjk:"中文"`}},
		{"知识库", []string{`cjk:"知识 识库"`}},
		{"字", []string{`cjk:"字"*`}},
		{"   ", nil},
	}
	for _, c := range cases {
		if got := MatchExprs(c.q); !slices.Equal(got, c.want) {
			t.Errorf("MatchExprs(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	long := strings.Repeat("word", 1) + strings.Repeat(" w", 0)
	for i := 0; i < 40; i++ {
		long += " t" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	if n := strings.Count(MatchExprs(long)[0], " AND "); n != MaxTerms-1 {
		t.Errorf("a long query has %d terms, want %d", n+1, MaxTerms)
	}
}

func TestBigrams(t *testing.T) {
	if got := Bigrams("用向量 abc 库"); got != "用向 向量 量 库" {
		t.Errorf("Bigrams = %q", got)
	}
}

func TestHybridWithRateLimitedEmbeddings(t *testing.T) {
	es := newEmbedServer(t, 64)
	es.fail429.Store(2) // the first two requests are refused with 429
	f := newFixture(t, es)
	k := f.create("hybrid", "local/bag")
	ctx := context.Background()
	a, _ := f.svc.AddText(ctx, k.ID, "garden.md", english)
	b, _ := f.svc.AddText(ctx, k.ID, "db.md", chinese)
	f.idle()
	for _, id := range []string{a.ID, b.ID} {
		fl := f.file(id)
		if fl.State != StateDone || fl.Embedded != fl.Chunks || fl.Chunks == 0 {
			t.Fatalf("file %s: %+v", fl.Name, fl)
		}
	}
	if got, _ := f.svc.Get(ctx, k.ID); got.Dims != 64 {
		t.Errorf("dims = %d, want 64 (learnt from the model)", got.Dims)
	}
	if es.requests.Load() < 3 {
		t.Errorf("requests = %d: the 429s were not retried", es.requests.Load())
	}
	hits := f.search(k.ID, "watering tomatoes")
	if len(hits) == 0 || hits[0].File != "garden.md" || !slices.Contains(hits[0].Via, "vector") || !slices.Contains(hits[0].Via, "keyword") {
		t.Fatalf("hybrid search: %+v", hits)
	}
	// a word no chunk has: found by meaning alone (its vector shares "suckers")
	hits = f.search(k.ID, "suckers zzzunknown")
	if len(hits) == 0 || hits[0].File != "garden.md" {
		t.Fatalf("vector search: %+v", hits)
	}
}

func TestFailingEmbeddingsAndBadFileDoNotStopTheQueue(t *testing.T) {
	es := newEmbedServer(t, 16)
	es.fail500.Store(true)
	f := newFixture(t, es)
	bad := f.create("failing", "local/bag")
	plain := f.create("plain", "")
	ctx := context.Background()
	e, _ := f.svc.AddText(ctx, bad.ID, "garden.md", english)
	bin, err := f.svc.AddText(ctx, plain.ID, "blob.bin", "\x00\x01\x02\xff\xfe binary \x00")
	if err != nil {
		t.Fatal(err)
	}
	good, _ := f.svc.AddText(ctx, plain.ID, "db.md", chinese)
	f.idle()
	if fl := f.file(e.ID); fl.State != StateError || fl.ErrorCode != string(apperr.KBEmbeddingFailed) {
		t.Errorf("failing embeddings: %+v", fl)
	}
	if fl := f.file(bin.ID); fl.State != StateError || !strings.HasPrefix(fl.ErrorCode, "doc_") {
		t.Errorf("binary file: %+v", fl)
	}
	if fl := f.file(good.ID); fl.State != StateDone {
		t.Errorf("good file after bad ones: %+v", fl)
	}
	// the provider recovers: a retry of the failed file alone succeeds
	es.fail500.Store(false)
	if err := f.svc.Retry(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	f.idle()
	if fl := f.file(e.ID); fl.State != StateDone || fl.Embedded != fl.Chunks {
		t.Errorf("after retry: %+v", fl)
	}
}

func TestRetryDoesNotDuplicateChunks(t *testing.T) {
	f := newFixture(t, nil)
	k := f.create("retry", "")
	ctx := context.Background()
	fl, _ := f.svc.AddText(ctx, k.ID, "garden.md", english)
	f.idle()
	chunks := f.count("SELECT count(*) FROM kb_chunks WHERE file_id=?", fl.ID)
	if chunks == 0 {
		t.Fatal("no chunks")
	}
	for i := 0; i < 3; i++ {
		if err := f.svc.Retry(ctx, fl.ID); err != nil {
			t.Fatal(err)
		}
		f.idle()
	}
	if n := f.count("SELECT count(*) FROM kb_chunks WHERE file_id=?", fl.ID); n != chunks {
		t.Errorf("chunks after retries = %d, want %d", n, chunks)
	}
	if hits := f.search(k.ID, "aphids"); len(hits) != 1 {
		t.Errorf("hits after retries = %d, want 1", len(hits))
	}
	// the same content again is the same file
	again, _ := f.svc.AddText(ctx, k.ID, "copy.md", english)
	if again.ID != fl.ID {
		t.Errorf("identical content became a second file")
	}
}

func longText(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("Paragraph about topic number ")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(" with several words to fill a chunk of text nicely.\n\n")
	}
	return b.String()
}

func TestRestartMidIngestResumes(t *testing.T) {
	es := newEmbedServer(t, 16)
	es.gate, es.free = make(chan struct{}), 2 // two batches pass, then the server stalls
	f := newFixture(t, es)
	k := f.create("restart", "local/bag")
	fl, _ := f.svc.AddText(context.Background(), k.ID, "long.txt", longText(60))
	waitFor(t, func() bool { return f.file(fl.ID).Embedded >= 8 })
	f.svc.Close() // the process stops mid-ingest
	mid := f.file(fl.ID)
	if mid.State != StateEmbedding || mid.Embedded == 0 || mid.Embedded >= mid.Chunks {
		t.Fatalf("not stopped mid-ingest: %+v", mid)
	}
	time.Sleep(100 * time.Millisecond) // the stalled request's client has gone
	before := es.inputs.Load()
	close(es.gate)
	f.open()
	f.idle()
	end := f.file(fl.ID)
	if end.State != StateDone || end.Embedded != end.Chunks || end.Chunks != mid.Chunks {
		t.Fatalf("after restart: %+v (was %+v)", end, mid)
	}
	if sent := int(es.inputs.Load() - before); sent != end.Chunks-mid.Embedded {
		t.Errorf("after restart %d chunks were embedded, want only the %d left", sent, end.Chunks-mid.Embedded)
	}
}

func TestPauseResume(t *testing.T) {
	es := newEmbedServer(t, 16)
	es.gate, es.free = make(chan struct{}), 1
	f := newFixture(t, es)
	k := f.create("pause", "local/bag")
	ctx := context.Background()
	fl, _ := f.svc.AddText(ctx, k.ID, "long.txt", longText(40))
	waitFor(t, func() bool { return f.file(fl.ID).Embedded >= 4 })
	if err := f.svc.Pause(ctx, k.ID, ""); err != nil {
		t.Fatal(err)
	}
	f.idle() // a paused file is not work
	p := f.file(fl.ID)
	if p.State != StatePaused {
		t.Fatalf("after pause: %+v", p)
	}
	close(es.gate)
	time.Sleep(50 * time.Millisecond)
	if got := f.file(fl.ID); got.State != StatePaused || got.Embedded != p.Embedded {
		t.Fatalf("paused file moved on: %+v", got)
	}
	if err := f.svc.Resume(ctx, k.ID, ""); err != nil {
		t.Fatal(err)
	}
	f.idle()
	if got := f.file(fl.ID); got.State != StateDone || got.Embedded != got.Chunks {
		t.Fatalf("after resume: %+v", got)
	}
}

func TestCancelAndRemove(t *testing.T) {
	es := newEmbedServer(t, 16)
	es.gate, es.free = make(chan struct{}), 1
	f := newFixture(t, es)
	k := f.create("cancel", "local/bag")
	ctx := context.Background()
	fl, _ := f.svc.AddText(ctx, k.ID, "long.txt", longText(40))
	waitFor(t, func() bool { return f.file(fl.ID).Embedded >= 4 })
	if err := f.svc.Cancel(ctx, fl.ID); err != nil {
		t.Fatal(err)
	}
	f.idle()
	if got := f.file(fl.ID); got.State != StateError || got.ErrorCode != string(apperr.KBIngestCancelled) {
		t.Fatalf("after cancel: %+v", got)
	}
	close(es.gate)
	if err := f.svc.RemoveFile(ctx, fl.ID); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM kb_chunks"); n != 0 {
		t.Errorf("chunks left: %d", n)
	}
	if _, err := os.Stat(f.svc.blobPath(fl.SHA256)); !os.IsNotExist(err) {
		t.Errorf("copy left behind: %v", err)
	}
}

func TestAddFolder(t *testing.T) {
	f := newFixture(t, nil)
	k := f.create("folder", "")
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", english)
	write("sub/deeper/b.md", chinese)
	write("sub/same.md", english) // same content as a.md: indexed once
	write(".hidden.md", "secret notes")
	write(".git/config.md", "secret")
	write("node_modules/x.md", "vendored")
	write("skip.log", "log")
	got, err := f.svc.AddPaths(context.Background(), k.Name, []string{root}, AddOptions{Ignore: []string{"node_modules", "*.log"}})
	if err != nil {
		t.Fatal(err)
	}
	f.idle()
	list, _ := f.svc.Files(context.Background(), k.ID)
	var names []string
	for _, fl := range list {
		names = append(names, fl.Name)
	}
	if len(got) != 3 || !slices.Equal(names, []string{"a.md", "b.md"}) {
		t.Fatalf("added %d, files %v", len(got), names)
	}
}

func TestKBCrud(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	k := f.create("one", "")
	if _, err := f.svc.Create(ctx, CreateInput{Name: " one "}); apperr.From(err).Code != apperr.KBNameTaken {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := f.svc.Create(ctx, CreateInput{Name: "x", Embedding: "nomodel"}); apperr.From(err).Code != apperr.InvalidArgument {
		t.Errorf("bad embedding spec: %v", err)
	}
	if _, err := f.svc.Rename(ctx, "one", "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetChunking(ctx, "two", 128, 16); err != nil {
		t.Fatal(err)
	}
	got, _ := f.svc.Get(ctx, k.ID)
	if got.Name != "two" || got.ChunkSize != 128 || got.ChunkOverlap != 16 {
		t.Errorf("after rename and chunking: %+v", got)
	}
	fl, _ := f.svc.AddText(ctx, "two", "t", "hello world")
	f.idle()
	if err := f.svc.Delete(ctx, "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Get(ctx, "two"); apperr.From(err).Code != apperr.KBNotFound {
		t.Errorf("after delete: %v", err)
	}
	if n := f.count("SELECT count(*) FROM kb_chunks") + f.count("SELECT count(*) FROM kb_files"); n != 0 {
		t.Errorf("rows left: %d", n)
	}
	if _, err := os.Stat(f.svc.blobPath(fl.SHA256)); !os.IsNotExist(err) {
		t.Errorf("copy left behind")
	}
}

func TestProgressEvents(t *testing.T) {
	f := newFixture(t, nil)
	sub := f.bus.Subscribe(256)
	defer sub.Close()
	k := f.create("events", "")
	fl, _ := f.svc.AddText(context.Background(), k.ID, "g.md", english)
	f.idle()
	var states []string
	timeout := time.After(5 * time.Second)
	for !slices.Contains(states, string(StateDone)) {
		select {
		case ev := <-sub.C:
			if ev.Topic == Topic(k.ID) && ev.Type == TypeFileProgress && strings.Contains(string(ev.Data), fl.ID) {
				for _, s := range []State{StateQueued, StateParsing, StateDone} {
					if strings.Contains(string(ev.Data), `"state":"`+string(s)+`"`) {
						states = append(states, string(s))
					}
				}
			}
		case <-timeout:
			t.Fatalf("states seen: %v", states)
		}
	}
	if !slices.Equal(states, []string{"queued", "parsing", "done"}) {
		t.Errorf("states = %v", states)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestProgressIsCoalesced(t *testing.T) {
	es := newEmbedServer(t, 16)
	f := newFixture(t, es)
	f.svc.Close()
	cfg := f.config()
	cfg.Coalesce = time.Hour // only state changes get through
	svc, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	f.svc = svc
	sub := f.bus.Subscribe(1024)
	defer sub.Close()
	k := f.create("coalesce", "local/bag")
	fl, _ := svc.AddText(context.Background(), k.ID, "long.txt", longText(60))
	f.idle()
	if got := f.file(fl.ID); got.State != StateDone || got.Chunks < 3*cfg.BatchSize {
		t.Fatalf("file: %+v", got)
	}
	n := 0
	for len(sub.C) > 0 {
		if ev := <-sub.C; ev.Type == TypeFileProgress {
			n++
		}
	}
	if n != 4 { // queued, parsing, embedding, done
		t.Errorf("%d progress events for one file, want 4", n)
	}
}

// The keyword table merges its segments 16 at a time (migration 0025), which a file per
// transaction ingests faster with.
func TestFTSMergesSixteenSegmentsAtATime(t *testing.T) {
	f := newFixture(t, nil)
	var v int
	if err := f.db.DB.QueryRow("SELECT v FROM kb_fts_config WHERE k = 'automerge'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != 16 {
		t.Fatalf("automerge = %d, want 16", v)
	}
}
