// Package kb is Cairn's knowledge bases: documents copied into the data directory by
// their content, parsed and chunked by docparse in a background queue whose per-file
// state survives a restart, indexed for keywords (FTS5 with CJK bigrams) and, when the KB
// has an embedding model, for meaning (vectors searched exactly in memory), and searched
// by both with reciprocal rank fusion. The kb_* tools and `cairn kb` sit on Service.
package kb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/docparse"
	"github.com/cairn-app/cairn/backend/events"
)

// Config is what a Service runs on.
type Config struct {
	DataDir string
	Store   Store
	Bus     *events.Bus // optional
	// Embedders resolves a KB's provider and model; nil means no KB may have one.
	Embedders EmbedderFor
	Log       *slog.Logger
	// BatchSize is the number of chunks per embedding request (64).
	BatchSize int
	// Coalesce is the least time between two progress events of one file (250 ms); state
	// changes are always sent.
	Coalesce time.Duration
	// OnChange is called after a KB or the set of its files changed (the toolset's
	// instruction names them). Optional.
	OnChange func()
	// SyncEvery is how often synced folders are scanned (10 s); negative: only when a
	// folder is added or its sync turned on.
	SyncEvery time.Duration
	// Rerankers resolves a KB's rerank provider and model; nil means no KB may have one.
	Rerankers RerankerFor
}

// Service is the knowledge bases of one data directory, with their ingest worker.
type Service struct {
	cfg  Config
	st   Store
	log  *slog.Logger
	ctx  context.Context
	stop context.CancelFunc
	done chan struct{}
	wake chan struct{}

	pub      sync.Mutex // held from a state change to its event (emitLocked)
	mu       sync.Mutex
	indexes  map[string]*vecIndex
	kw       map[string]*kwIndex // keyword indexes, built on a KB's first search
	seed     maphash.Seed        // the keyword indexes' term hashes
	latin    *latinBase
	bg       sync.WaitGroup // keyword builds
	ftsOnly  bool           // tests: rank in FTS5 only, to compare
	current  work
	lastEmit map[string]time.Time

	reembedFails int // the worker's: failed re-embed batches in a row
	sync         *syncer
	up           uploads
}

// work is the file the worker is on, with the way to stop it.
type work struct {
	fileID, kbID string
	cancel       context.CancelFunc
}

// New starts the service: files a stopped process left half parsed go back in the queue,
// and the worker picks up where it stopped.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	if cfg.Coalesce <= 0 {
		cfg.Coalesce = 250 * time.Millisecond
	}
	if cfg.SyncEvery == 0 {
		cfg.SyncEvery = 10 * time.Second
	}
	if err := cfg.Store.Interrupted(ctx); err != nil {
		return nil, fmt.Errorf("resume ingest: %w", err)
	}
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s := &Service{cfg: cfg, st: cfg.Store, log: cfg.Log, ctx: wctx, stop: stop, done: make(chan struct{}),
		wake: make(chan struct{}, 1), indexes: map[string]*vecIndex{}, lastEmit: map[string]time.Time{},
		kw: map[string]*kwIndex{}, seed: maphash.MakeSeed(), latin: newLatinBase()}
	s.clearUploads()
	go s.run()
	s.startSync()
	return s, nil
}

// Close stops the worker and the folder sync; a file the worker was on stays where it
// was and resumes next time.
func (s *Service) Close() error {
	s.stop()
	<-s.done
	<-s.sync.done
	s.bg.Wait()
	s.clearUploads()
	return nil
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateInput is a new KB. Embedding is "PROVIDER/MODEL" (provider by id or name), empty
// for keywords only; zero sizes take docparse's defaults.
type CreateInput struct {
	Name         string `json:"name"`
	Embedding    string `json:"embedding,omitempty"`
	ChunkSize    int    `json:"chunkSize,omitempty"`
	ChunkOverlap int    `json:"chunkOverlap,omitempty"`
}

func cleanName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" || len([]rune(n)) > 100 || strings.IndexFunc(n, unicode.IsControl) >= 0 {
		return "", apperr.New(apperr.InvalidArgument, "a knowledge base needs a name of 1 to 100 characters without control characters")
	}
	return n, nil
}

func sizes(size, overlap int) (int, int, error) {
	if size == 0 {
		size = docparse.DefaultChunkSize
	}
	if overlap == 0 {
		overlap = docparse.DefaultOverlap
	}
	if size < 32 || size > 8192 || overlap < 0 || overlap > size/2 {
		return 0, 0, apperr.New(apperr.InvalidArgument, "chunk size must be 32 to 8192 and overlap at most half of it")
	}
	return size, overlap, nil
}

// Create makes a KB. An embedding model is checked to resolve (the provider exists and
// has its key) but not called: its dimensions are learnt from its first answer.
func (s *Service) Create(ctx context.Context, in CreateInput) (KB, error) {
	name, err := cleanName(in.Name)
	if err != nil {
		return KB{}, err
	}
	size, overlap, err := sizes(in.ChunkSize, in.ChunkOverlap)
	if err != nil {
		return KB{}, err
	}
	k := KB{ID: newID(), Name: name, ChunkSize: size, ChunkOverlap: overlap, CreatedAt: now(), UpdatedAt: now()}
	if in.Embedding != "" {
		if k.EmbedProvider, k.EmbedModel, err = s.checkEmbedding(ctx, in.Embedding); err != nil {
			return KB{}, err
		}
	}
	if err := s.st.CreateKB(ctx, k); err != nil {
		return KB{}, err
	}
	s.changed()
	return k, nil
}

func (s *Service) checkEmbedding(ctx context.Context, spec string) (string, string, error) {
	p, m, ok := strings.Cut(strings.TrimSpace(spec), "/")
	if !ok || p == "" || m == "" {
		return "", "", apperr.New(apperr.InvalidArgument, "embedding must be PROVIDER/MODEL, not %s", apperr.Quote(spec))
	}
	if s.cfg.Embedders == nil {
		return "", "", apperr.New(apperr.InvalidArgument, "no embedding providers are available here")
	}
	if _, err := s.cfg.Embedders(ctx, p, m); err != nil {
		return "", "", err
	}
	return p, m, nil
}

// Rename gives a KB another name.
func (s *Service) Rename(ctx context.Context, ref, name string) (KB, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return KB{}, err
	}
	if k.Name, err = cleanName(name); err != nil {
		return KB{}, err
	}
	if err := s.st.UpdateKB(ctx, k); err != nil {
		return KB{}, err
	}
	s.changed()
	return k, nil
}

// SetChunking changes a KB's chunk size and overlap and re-indexes every file with them.
func (s *Service) SetChunking(ctx context.Context, ref string, size, overlap int) (KB, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return KB{}, err
	}
	if k.ChunkSize, k.ChunkOverlap, err = sizes(size, overlap); err != nil {
		return KB{}, err
	}
	if err := s.st.UpdateKB(ctx, k); err != nil {
		return KB{}, err
	}
	s.changed()
	return k, s.ReindexAll(ctx, k.ID)
}

// Delete removes a KB with its files, chunks and the copies no other KB uses.
func (s *Service) Delete(ctx context.Context, ref string) error {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return err
	}
	files, err := s.st.Files(ctx, k.ID)
	if err != nil {
		return err
	}
	s.stopCurrent(func(w work) bool { return w.kbID == k.ID })
	if err := s.st.DeleteKB(ctx, k.ID); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.indexes, k.ID)
	delete(s.kw, k.ID)
	s.mu.Unlock()
	for _, f := range files {
		s.dropBlob(ctx, f.SHA256)
	}
	s.changed()
	return nil
}

// List is every KB, with the progress of a re-embed under way.
func (s *Service) List(ctx context.Context) ([]KB, error) {
	kbs, err := s.st.KBs(ctx)
	for i := range kbs {
		kbs[i].Reembed = s.reembedProgress(ctx, kbs[i])
	}
	return kbs, err
}

// Get is one KB by id or name.
func (s *Service) Get(ctx context.Context, ref string) (KB, error) {
	k, err := s.st.KB(ctx, ref)
	if err == nil {
		k.Reembed = s.reembedProgress(ctx, k)
	}
	return k, err
}

// Files lists a KB's files with their ingest state.
func (s *Service) Files(ctx context.Context, ref string) ([]File, error) {
	k, err := s.st.KB(ctx, ref)
	if err != nil {
		return nil, err
	}
	return s.st.Files(ctx, k.ID)
}

// File is one file.
func (s *Service) File(ctx context.Context, id string) (File, error) { return s.st.File(ctx, id) }

// Chunks are chunks from..to (inclusive, by index) of a file.
func (s *Service) Chunks(ctx context.Context, fileID string, from, to int) ([]Chunk, error) {
	if _, err := s.st.File(ctx, fileID); err != nil {
		return nil, err
	}
	return s.st.FileChunks(ctx, fileID, from, to)
}

func (s *Service) changed() {
	if s.cfg.Bus != nil {
		s.cfg.Bus.Publish(TopicKBs, TypeKBsChanged, struct{}{})
	}
	if s.cfg.OnChange != nil {
		s.cfg.OnChange()
	}
}
