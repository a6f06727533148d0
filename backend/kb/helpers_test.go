package kb

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
)

// embedServer is a local server on the OpenAI embeddings wire. Its vectors are a bag of
// the words (and CJK bigrams) of each input hashed into dims buckets, so texts sharing
// words are near. fail429 answers 429 that many times first; fail500 makes every answer
// a 500; block, when set, is waited on before each answer after the first `free`.
type embedServer struct {
	*httptest.Server
	dims     int
	fail429  atomic.Int32
	fail500  atomic.Bool
	requests atomic.Int32
	inputs   atomic.Int32
	gate     chan struct{}
	free     int32

	mu      sync.Mutex
	batches [][]string // the inputs of each request, in arrival order
}

// seen is the inputs of every request so far.
func (es *embedServer) seen() [][]string {
	es.mu.Lock()
	defer es.mu.Unlock()
	return slices.Clone(es.batches)
}

func newEmbedServer(t *testing.T, dims int) *embedServer {
	es := &embedServer{dims: dims}
	es.Server = httptest.NewServer(http.HandlerFunc(es.serve))
	t.Cleanup(es.Close)
	return es
}

func (es *embedServer) serve(w http.ResponseWriter, r *http.Request) {
	n := es.requests.Add(1)
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if es.fail429.Load() > 0 {
		es.fail429.Add(-1)
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
		return
	}
	if es.fail500.Load() {
		http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	es.mu.Lock()
	es.batches = append(es.batches, req.Input)
	es.mu.Unlock()
	if es.gate != nil && n > es.free {
		select {
		case <-es.gate:
		case <-r.Context().Done():
			return
		}
		if r.Context().Err() != nil {
			return // the client left while the server stalled
		}
	}
	es.inputs.Add(int32(len(req.Input)))
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	for i, in := range req.Input {
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: bagVector(in, es.dims)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func bagVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	words := strings.Fields(strings.ToLower(text))
	words = append(words, strings.Fields(Bigrams(text))...)
	for _, w := range words {
		w = strings.Trim(w, ".,;:!?\"'()")
		if w == "" || isStopword(w) {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	return v
}

type fixture struct {
	t   *testing.T
	dir string
	db  *store.DB
	bus *events.Bus
	es  *embedServer
	svc *Service
}

func newFixture(t *testing.T, es *embedServer) *fixture {
	t.Helper()
	dir := t.TempDir()
	db, err := store.OpenPath(context.Background(), filepath.Join(dir, "cairn.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, dir: dir, db: db, bus: events.NewBus(), es: es}
	f.open()
	return f
}

func (f *fixture) config() Config {
	cfg := Config{DataDir: f.dir, Store: NewSQLStore(f.db.DB), Bus: f.bus, BatchSize: 4, Coalesce: time.Millisecond}
	if f.es != nil {
		cfg.Embedders = func(_ context.Context, provider, model string) (Embedder, error) {
			return &OpenAIEmbedder{BaseURL: f.es.URL + "/v1", Model: model, Backoff: 5 * time.Millisecond, Attempts: 4}, nil
		}
	}
	return cfg
}

func (f *fixture) open() {
	f.t.Helper()
	svc, err := New(context.Background(), f.config())
	if err != nil {
		f.t.Fatal(err)
	}
	f.svc = svc
	var once sync.Once
	f.t.Cleanup(func() { once.Do(func() { svc.Close() }) })
}

func (f *fixture) create(name, embedding string) KB {
	f.t.Helper()
	k, err := f.svc.Create(context.Background(), CreateInput{Name: name, Embedding: embedding, ChunkSize: 64, ChunkOverlap: 8})
	if err != nil {
		f.t.Fatal(err)
	}
	return k
}

func (f *fixture) idle() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.svc.WaitIdle(ctx, nil); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) count(q string, args ...any) int {
	f.t.Helper()
	var n int
	if err := f.db.QueryRow(q, args...).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

func (f *fixture) file(id string) File {
	f.t.Helper()
	fl, err := f.svc.File(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return fl
}

func (f *fixture) search(kb, q string) []Hit {
	f.t.Helper()
	hits, err := f.svc.Search(context.Background(), SearchRequest{Query: q, KBs: []string{kb}})
	if err != nil {
		f.t.Fatal(err)
	}
	return hits
}

func files(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.File)
	}
	return out
}
