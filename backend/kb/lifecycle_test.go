package kb

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/tools"
)

// eventually polls cond until it holds or 20 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileNames(t *testing.T, svc *Service, kb string) []string {
	t.Helper()
	fs, err := svc.Files(context.Background(), kb)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	slices.Sort(out)
	return out
}

func write(t *testing.T, path, text string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestFolderSyncPicksUpChanges(t *testing.T) {
	f := newFixture(t, nil)
	f.svc.Close()
	cfg := f.config()
	cfg.SyncEvery = 30 * time.Millisecond
	svc, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	k := f.create("notes", "")
	ctx := context.Background()
	dir := t.TempDir()
	t0 := time.Now().Add(-time.Hour)
	write(t, filepath.Join(dir, "garden.md"), "Tomatoes need sun.", t0)
	write(t, filepath.Join(dir, "sub", "birds.txt"), "Robins sing at dawn.", t0)
	write(t, filepath.Join(dir, ".hidden.txt"), "secret", t0)
	write(t, filepath.Join(dir, "build.log"), "noise", t0)

	folder, err := f.svc.AddFolder(ctx, k.ID, dir, AddOptions{Ignore: []string{"*.log"}}, true)
	if err != nil || !folder.Sync || folder.SyncedAt == 0 {
		t.Fatalf("add folder: %+v %v", folder, err)
	}
	if got := fileNames(t, f.svc, k.ID); !slices.Equal(got, []string{"birds.txt", "garden.md"}) {
		t.Fatalf("files after add = %v", got)
	}
	f.idle()

	// Changed, added and removed while running. A scan between the write and the
	// backdating sees garden.md as just changed and leaves it to settle, so the names
	// alone can match while the old garden.md is still the one stored: wait for its size.
	changed := "Tomatoes need sun and cucumbers need trellises."
	write(t, filepath.Join(dir, "garden.md"), changed, t0.Add(time.Minute))
	write(t, filepath.Join(dir, "sub", "fish.txt"), "Trout swim upstream.", t0)
	if err := os.Remove(filepath.Join(dir, "sub", "birds.txt")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the folder's changes", func() bool {
		fs, err := f.svc.Files(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{}
		for _, fl := range fs {
			sizes[fl.Name] = fl.Size
		}
		return len(fs) == 2 && sizes["fish.txt"] > 0 && sizes["garden.md"] == int64(len(changed))
	})
	f.idle()
	if hits := f.search("notes", "cucumbers"); len(hits) != 1 || hits[0].File != "garden.md" {
		t.Fatalf("changed file not indexed: %+v", hits)
	}
	if hits := f.search("notes", "robins"); len(hits) != 0 {
		t.Fatalf("removed file still found: %+v", hits)
	}
	if n := f.count("SELECT count(*) FROM kb_files WHERE kb_id=?", k.ID); n != 2 {
		t.Fatalf("%d file rows, want 2 (the old garden.md replaced)", n)
	}

	// A touch without a change of content keeps the file as it is.
	before := f.file(mustFileID(t, f.svc, k.ID, "garden.md"))
	write(t, filepath.Join(dir, "garden.md"), "Tomatoes need sun and cucumbers need trellises.", t0.Add(2*time.Minute))
	time.Sleep(150 * time.Millisecond)
	if after := f.file(before.ID); after.State != StateDone || after.UpdatedAt != before.UpdatedAt {
		t.Fatalf("touched file re-indexed: %+v -> %+v", before, after)
	}

	// Changes made while Cairn is closed are picked up when it opens.
	f.svc.Close()
	write(t, filepath.Join(dir, "late.txt"), "Owls hunt at night.", t0)
	cfg.SyncEvery = time.Hour
	if f.svc, err = New(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.svc.Close() })
	eventually(t, "the change made while closed", func() bool {
		return slices.Contains(fileNames(t, f.svc, k.ID), "late.txt")
	})

	// Sync off: changes wait; removing the folder removes its files.
	if _, err := f.svc.SetFolderSync(ctx, folder.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RemoveFolder(ctx, folder.ID); err != nil {
		t.Fatal(err)
	}
	if got := fileNames(t, f.svc, k.ID); len(got) != 0 {
		t.Fatalf("files after removing the folder = %v", got)
	}
}

// TestFolderSyncWaitsForAFileToSettle: a synced file caught half written (emptied, as an
// editor does before it writes) is left as it was until its change has settled, so the
// KB never swaps a file for a truncated copy.
func TestFolderSyncWaitsForAFileToSettle(t *testing.T) {
	f := newFixture(t, nil)
	f.svc.Close()
	cfg := f.config()
	cfg.SyncEvery = 20 * time.Millisecond
	svc, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	t.Cleanup(func() { f.svc.Close() })
	k := f.create("notes", "")
	dir := t.TempDir()
	path := filepath.Join(dir, "garden.md")
	write(t, path, "Tomatoes need sun.", time.Now().Add(-time.Hour))
	if _, err := f.svc.AddFolder(context.Background(), k.ID, dir, AddOptions{}, true); err != nil {
		t.Fatal(err)
	}
	f.idle()
	id := mustFileID(t, f.svc, k.ID, "garden.md")
	if err := os.WriteFile(path, nil, 0o644); err != nil { // emptied just now
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // many scans
	if got := mustFileID(t, f.svc, k.ID, "garden.md"); got != id {
		t.Fatalf("a half-written file replaced the stored one: %s -> %s", id, got)
	}
	if hits := f.search("notes", "tomatoes"); len(hits) != 1 {
		t.Fatalf("the stored text is gone: %+v", hits)
	}
	write(t, path, "Tomatoes need sun and water.", time.Now().Add(-time.Minute)) // written and settled
	eventually(t, "the settled change", func() bool { return mustFileID(t, f.svc, k.ID, "garden.md") != id })
	f.idle()
	if hits := f.search("notes", "water"); len(hits) != 1 {
		t.Fatalf("the settled change is not indexed: %+v", hits)
	}
}

func mustFileID(t *testing.T, svc *Service, kb, name string) string {
	t.Helper()
	fs, _ := svc.Files(context.Background(), kb)
	for _, f := range fs {
		if f.Name == name {
			return f.ID
		}
	}
	t.Fatalf("no file %s", name)
	return ""
}

// twoModels routes "local/small" to one server and "local/large" to another.
func twoModels(small, large *embedServer) EmbedderFor {
	return func(_ context.Context, provider, model string) (Embedder, error) {
		es := small
		if model == "large" {
			es = large
		}
		return &OpenAIEmbedder{BaseURL: es.URL + "/v1", Model: model, Backoff: 5 * time.Millisecond, Attempts: 2}, nil
	}
}

func TestReembedInBackgroundSurvivesRestart(t *testing.T) {
	small, large := newEmbedServer(t, 16), newEmbedServer(t, 40)
	large.gate, large.free = make(chan struct{}), 1
	f := newFixture(t, nil)
	f.svc.Close()
	cfg := f.config()
	cfg.Embedders = twoModels(small, large)
	var err error
	if f.svc, err = New(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := f.create("docs", "local/small")
	for _, name := range []string{"a.md", "b.md", "c.md"} {
		// Every chunk's text differs (the heading path names the file).
		f.svc.AddText(ctx, k.ID, name, strings.Replace(english, "# Gardening notes", "# Gardening notes "+name, 1))
	}
	f.idle()
	total := f.count("SELECT count(*) FROM kb_chunks WHERE kb_id=?", k.ID)
	if total <= cfg.BatchSize {
		t.Fatalf("only %d chunks; the test needs more than one batch", total)
	}

	got, err := f.svc.SetEmbedding(ctx, k.ID, "local/large")
	if err != nil || got.NextEmbedModel != "large" || got.EmbedModel != "small" {
		t.Fatalf("set embedding: %+v %v", got, err)
	}
	eventually(t, "the first batch of new vectors", func() bool {
		k, _ := f.svc.Get(ctx, k.ID)
		return k.Reembed != nil && k.Reembed.Done == cfg.BatchSize && large.requests.Load() >= 2
	})
	// Meanwhile searches use the old model's vectors.
	hits := f.search("docs", "aphids ladybirds")
	if len(hits) == 0 || !slices.Contains(hits[0].Via, "vector") {
		t.Fatalf("search during the re-embed: %+v", hits)
	}
	f.svc.Close() // the second request is stalled at the gate

	close(large.gate)
	if f.svc, err = New(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.svc.Close() })
	eventually(t, "the switch to the new model", func() bool {
		k, _ := f.svc.Get(ctx, k.ID)
		return k.EmbedModel == "large" && k.NextEmbedModel == "" && k.Dims == 40
	})
	// The batch stored before the restart is not asked for again (a request the closing
	// service abandoned may still be counted by the server, so counts alone would lie).
	batches := large.seen()
	for _, b := range batches[1:] {
		for _, text := range b {
			if slices.Contains(batches[0], text) {
				t.Fatalf("after the restart the new model was asked again for %q: the re-embed did not resume", text)
			}
		}
	}
	if n := f.count("SELECT count(*) FROM kb_chunks WHERE kb_id=? AND length(vector)=160 AND next_vector IS NULL", k.ID); n != total {
		t.Fatalf("%d of %d chunks have the new vector", n, total)
	}
	hits = f.search("docs", "aphids ladybirds")
	if len(hits) == 0 || !slices.Contains(hits[0].Via, "vector") {
		t.Fatalf("search after the switch: %+v", hits)
	}
	// Back to keywords only: no vectors left.
	if _, err := f.svc.SetEmbedding(ctx, k.ID, ""); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM kb_chunks WHERE kb_id=? AND vector IS NOT NULL", k.ID); n != 0 {
		t.Fatalf("%d vectors left on a keyword-only KB", n)
	}
}

// rerankServer speaks the /rerank wire: a document scores the number of times it holds
// the word "favourite"; fail makes it answer 500.
func rerankServer(t *testing.T, fail *atomic.Bool, seen *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/rerank" || fail.Load() {
			http.Error(w, `{"message":"down"}`, http.StatusInternalServerError)
			return
		}
		var req struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "rr" || req.Query == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		seen.Add(int32(len(req.Documents)))
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out struct {
			Results []result `json:"results"`
		}
		for i, d := range req.Documents {
			out.Results = append(out.Results, result{Index: i, Score: float64(strings.Count(d, "favourite"))})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRerankReordersHybridResults(t *testing.T) {
	var fail atomic.Bool
	var seen atomic.Int32
	srv := rerankServer(t, &fail, &seen)
	f := newFixture(t, newEmbedServer(t, 32))
	f.svc.Close()
	cfg := f.config()
	cfg.Rerankers = func(_ context.Context, provider, model string) (Reranker, error) {
		return &HTTPReranker{BaseURL: srv.URL + "/v1", Model: model}, nil
	}
	var err error
	if f.svc, err = New(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.svc.Close() })
	ctx := context.Background()
	k := f.create("fruit", "local/bag")
	f.svc.AddText(ctx, k.ID, "apples.txt", "Apples apples apples are a fruit.")
	f.svc.AddText(ctx, k.ID, "pears.txt", "Pears are a fruit, my favourite favourite one.")
	f.svc.AddText(ctx, k.ID, "plums.txt", "Plums are a fruit, a favourite too.")
	f.idle()

	plain := files(f.search("fruit", "apples fruit"))
	if len(plain) != 3 || plain[0] != "apples.txt" {
		t.Fatalf("fused order = %v", plain)
	}
	if _, err := f.svc.SetRerank(ctx, k.ID, "local/rr"); err != nil {
		t.Fatal(err)
	}
	hits := f.search("fruit", "apples fruit")
	if got := files(hits); !slices.Equal(got, []string{"pears.txt", "plums.txt", "apples.txt"}) || !slices.Contains(hits[0].Via, "rerank") {
		t.Fatalf("reranked order = %v (%+v)", got, hits)
	}
	if hits[0].Score != 2 || seen.Load() != 3 {
		t.Fatalf("score %v, documents sent %d", hits[0].Score, seen.Load())
	}
	fail.Store(true)
	if got := files(f.search("fruit", "apples fruit")); !slices.Equal(got, plain) {
		t.Fatalf("a failing reranker changed the order: %v, want %v", got, plain)
	}
	if _, err := f.svc.SetRerank(ctx, k.ID, "nonsense"); err == nil {
		t.Fatal("a rerank spec without a provider was accepted")
	}
}

func TestSearchToolSearchesTheSessionsAttachedKBs(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	garden, cook := f.create("garden", ""), f.create("kitchen", "")
	f.svc.AddText(ctx, garden.ID, "g.md", "Tomato plants need sun.")
	f.svc.AddText(ctx, cook.ID, "k.md", "Tomato soup needs salt.")
	f.idle()
	for _, id := range []string{"s1", "s2"} {
		if _, err := f.db.Exec("INSERT INTO sessions (id, kind, created_at, updated_at) VALUES (?, 'chat', 0, 0)", id); err != nil {
			t.Fatal(err)
		}
	}
	if ids, err := f.svc.SetSessionKBs(ctx, "s1", []string{"kitchen"}); err != nil || !slices.Equal(ids, []string{cook.ID}) {
		t.Fatalf("attach: %v %v", ids, err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(f.svc.Tools(Catalog{})...); err != nil {
		t.Fatal(err)
	}
	p := tools.NewPipeline(reg, tools.Options{})
	call := func(session, args string) SearchDisplay {
		t.Helper()
		scope := tools.Scope{SessionID: session, SessionKind: "chat", Toolsets: []string{Name}, Model: tools.ModelCaps{SupportsTools: true}}
		out := p.RunBatch(ctx, []tools.Call{{ID: "c", Name: SearchToolName, Arguments: args, SessionID: session, Scope: scope}}, nil)
		if out[0].Status != tools.StatusResult {
			t.Fatalf("%s %s: %+v", session, args, out[0])
		}
		var d SearchDisplay
		if err := json.Unmarshal(out[0].Display, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		session, args string
		kbs, files    []string
		attached      bool
	}{
		{"s1", `{"query":"tomato"}`, []string{"kitchen"}, []string{"k.md"}, true},
		{"s1", `{"query":"tomato","kbs":["garden"]}`, []string{"garden"}, []string{"g.md"}, false},
		{"s2", `{"query":"tomato"}`, []string{"garden", "kitchen"}, []string{"g.md", "k.md"}, false},
	}
	for _, c := range cases {
		d := call(c.session, c.args)
		got := files(d.Hits)
		slices.Sort(got)
		if !slices.Equal(d.KBs, c.kbs) || !slices.Equal(got, c.files) || d.Attached != c.attached {
			t.Errorf("%s %s: kbs %v files %v attached %v", c.session, c.args, d.KBs, got, d.Attached)
		}
	}
	// kb_list_files lists the attached KBs' files too.
	scope := tools.Scope{SessionID: "s1", SessionKind: "chat", Toolsets: []string{Name}, Model: tools.ModelCaps{SupportsTools: true}}
	out := p.RunBatch(ctx, []tools.Call{{ID: "l", Name: ListFilesToolName, Arguments: `{}`, SessionID: "s1", Scope: scope}}, nil)
	if c := out[0].Content; !strings.Contains(c, "k.md") || strings.Contains(c, "g.md") {
		t.Errorf("kb_list_files in s1: %s", c)
	}
	// Deleting a KB detaches it.
	if err := f.svc.Delete(ctx, cook.ID); err != nil {
		t.Fatal(err)
	}
	if ids, _ := f.svc.SessionKBs(ctx, "s1"); len(ids) != 0 {
		t.Fatalf("attached after delete: %v", ids)
	}
}

func TestUploadInParts(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	k := f.create("notes", "")
	text := "Owls hunt at night. " + strings.Repeat("Quiet wings. ", 50) + "Voles hide under snow."
	parts := []string{text[:100], text[100:400], text[400:]}
	id := ""
	var got UploadResult
	for i, p := range parts {
		var err error
		got, err = f.svc.UploadPart(ctx, k.ID, "birds/owls.md", id, []byte(p), i == len(parts)-1)
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if i < len(parts)-1 && (got.File != nil || got.UploadID == "") {
			t.Fatalf("part %d: %+v", i, got)
		}
		id = got.UploadID
	}
	if got.File == nil || got.File.Name != "owls.md" || got.File.Size != int64(len(text)) {
		t.Fatalf("last part: %+v", got)
	}
	f.idle()
	if hits := f.search("notes", "voles snow"); len(hits) != 1 || hits[0].File != "owls.md" {
		t.Fatalf("search: %+v", hits)
	}
	if _, err := f.svc.UploadPart(ctx, k.ID, "x.md", id, []byte("more"), true); err == nil {
		t.Fatal("a finished upload took another part")
	}
	// An unfinished upload is removed when the service closes.
	if _, err := f.svc.UploadPart(ctx, k.ID, "half.md", "", []byte("half"), false); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.dir, "kb", "uploads")); len(entries) != 1 {
		t.Fatalf("%d files in uploads while one is under way", len(entries))
	}
	f.svc.Close()
	if _, err := os.Stat(filepath.Join(f.dir, "kb", "uploads")); !os.IsNotExist(err) {
		t.Fatalf("uploads left after close: %v", err)
	}
}

// TestInstructionNamesTheAttachedKBs selects the kb toolset for a session with a KB
// attached (its instruction names that KB and its files, not the others), for one with
// none (every KB), and again after the attachment changed, with no refresh between.
func TestInstructionNamesTheAttachedKBs(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	garden, cook := f.create("garden", ""), f.create("kitchen", "")
	f.svc.AddText(ctx, garden.ID, "g.md", "Tomato plants need sun.")
	f.svc.AddText(ctx, cook.ID, "k.md", "Tomato soup needs salt.")
	f.idle()
	for _, id := range []string{"s1", "s2"} {
		if _, err := f.db.Exec("INSERT INTO sessions (id, kind, created_at, updated_at) VALUES (?, 'chat', 0, 0)", id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.SetSessionKBs(ctx, "s1", []string{"kitchen"}); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(f.svc.Tools(f.svc.Catalog(ctx))...); err != nil {
		t.Fatal(err)
	}
	p := tools.NewPipeline(reg, tools.Options{})
	instr := func(session string) string {
		t.Helper()
		sel, err := p.Select(ctx, tools.Scope{SessionID: session, SessionKind: "chat", Toolsets: []string{Name}, Model: tools.ModelCaps{SupportsTools: true}})
		if err != nil {
			t.Fatal(err)
		}
		return sel.Instructions
	}
	cases := []struct {
		session     string
		attach      []string // set first when not nil
		has, hasNot []string
	}{
		{"s1", nil, []string{`"kitchen": 1 files: "k.md"`, "attached to this conversation"}, []string{"garden", "g.md"}},
		{"s2", nil, []string{`"kitchen"`, `"garden": 1 files: "g.md"`, "The user's knowledge bases"}, []string{"attached to this conversation"}},
		{"s1", []string{"kitchen", "garden"}, []string{`"kitchen"`, `"garden"`, "attached to this conversation"}, nil},
		{"s1", []string{}, []string{`"kitchen"`, `"garden"`, "The user's knowledge bases"}, nil},
	}
	for i, c := range cases {
		if c.attach != nil {
			if _, err := f.svc.SetSessionKBs(ctx, c.session, c.attach); err != nil {
				t.Fatal(err)
			}
		}
		got := instr(c.session)
		if strings.Count(got, "knowledge bases") == 0 {
			t.Fatalf("case %d: no kb instruction in %q", i, got)
		}
		for _, w := range c.has {
			if !strings.Contains(got, w) {
				t.Errorf("case %d (%s): %q lacks %q", i, c.session, got, w)
			}
		}
		for _, w := range c.hasNot {
			if strings.Contains(got, w) {
				t.Errorf("case %d (%s): %q has %q", i, c.session, got, w)
			}
		}
	}
}
