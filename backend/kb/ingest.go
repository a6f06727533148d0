package kb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/docparse"
)

// run is the ingest worker: one file at a time, oldest first, files half embedded before
// new ones. Nothing a file does stops it.
func (s *Service) run() {
	defer close(s.done)
	for s.ctx.Err() == nil {
		f, ok, err := s.st.NextWork(s.ctx)
		if err != nil {
			if s.ctx.Err() == nil {
				s.log.Warn("kb: queue", "err", err)
			}
			s.sleep(time.Second)
			continue
		}
		if !ok {
			s.idleWork()
			continue
		}
		s.process(f)
	}
}

// idleWork runs when no file waits: a batch of a re-embed, else a wait for new work.
// Re-embedding on the ingest worker's goroutine means no file is being embedded with the
// old model while a KB switches to the new one.
func (s *Service) idleWork() {
	d := s.reembedStep()
	if d == 0 {
		return
	}
	var timer <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-s.ctx.Done():
	case <-s.wake:
	case <-timer:
	}
}

func (s *Service) sleep(d time.Duration) {
	select {
	case <-s.ctx.Done():
	case <-time.After(d):
	}
}

// process takes one file a step further; a panic in a parser ends as the file's error.
func (s *Service) process(f File) {
	fctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	s.current = work{fileID: f.ID, kbID: f.KBID, cancel: cancel}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.current = work{}
		s.mu.Unlock()
		cancel()
	}()
	defer func() {
		if r := recover(); r != nil {
			s.fail(fctx, f, apperr.New(apperr.KBIngestFailed, "ingest of %s crashed: %v", f.Name, r).WithParam("name", f.Name))
		}
	}()
	k, err := s.st.KB(fctx, f.KBID)
	if err != nil {
		s.fail(fctx, f, err)
		return
	}
	if f.State == StateQueued {
		if !s.parseFile(fctx, k, &f) {
			return
		}
	}
	s.embedFile(fctx, k, f)
}

// parseFile parses and chunks f and stores its chunks in place of any it had; it reports
// whether embedding follows.
func (s *Service) parseFile(ctx context.Context, k KB, f *File) bool {
	if ok, err := s.st.SetState(ctx, f.ID, StateParsing, []State{StateQueued}, "", ""); err != nil || !ok {
		return false
	}
	f.State = StateParsing
	s.emit(*f, true)
	chunks, err := s.parse(ctx, k, *f)
	if err != nil {
		s.fail(ctx, *f, err)
		return false
	}
	old, err := s.st.ReplaceChunks(ctx, *f, chunks)
	if err != nil {
		s.fail(ctx, *f, err)
		return false
	}
	s.indexChunks(k.ID, old, chunks)
	f.Chunks, f.Embedded = len(chunks), 0
	next := StateEmbedding
	if !k.HasEmbedding() {
		next = StateDone
	}
	if ok, err := s.st.SetState(ctx, f.ID, next, []State{StateParsing}, "", ""); err != nil || !ok {
		return false
	}
	f.State = next
	s.emit(*f, true)
	return next == StateEmbedding
}

func (s *Service) parse(ctx context.Context, k KB, f File) ([]Chunk, error) {
	r, err := os.Open(s.blobPath(f.SHA256))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.KBIngestFailed, "open the copy of %s", f.Name).WithParam("name", f.Name)
	}
	defer r.Close()
	doc, err := docparse.Parse(ctx, f.Name, r, f.Size, docparse.Options{})
	if err != nil {
		return nil, err
	}
	var out []Chunk
	for _, c := range docparse.Chunks(doc, k.ChunkSize, k.ChunkOverlap) {
		out = append(out, Chunk{Index: c.Index, Text: c.Text, Heading: strings.Join(c.HeadingPath, " › "),
			PageStart: c.PageStart, PageEnd: c.PageEnd, LineStart: c.LineStart, LineEnd: c.LineEnd})
	}
	return out, nil
}

// embedFile embeds the chunks of f that have no vector yet, batch by batch, so a restart
// or a resume continues where it stopped.
func (s *Service) embedFile(ctx context.Context, k KB, f File) {
	if s.cfg.Embedders == nil {
		s.fail(ctx, f, apperr.New(apperr.KBEmbeddingFailed, "no embedding providers are available").WithParam("model", k.EmbedModel))
		return
	}
	emb, err := s.cfg.Embedders(ctx, k.EmbedProvider, k.EmbedModel)
	if err != nil {
		s.fail(ctx, f, err)
		return
	}
	for ctx.Err() == nil {
		cs, err := s.st.Unembedded(ctx, f.ID, s.cfg.BatchSize)
		if err != nil {
			s.fail(ctx, f, err)
			return
		}
		if len(cs) == 0 {
			if ok, _ := s.st.SetState(ctx, f.ID, StateDone, []State{StateEmbedding}, "", ""); ok {
				f.State = StateDone
				s.emit(f, true)
			}
			return
		}
		if err := s.embedBatch(ctx, &k, emb, f, cs); err != nil {
			s.fail(ctx, f, err)
			return
		}
		f.Embedded += len(cs)
		s.emit(f, false)
	}
}

func (s *Service) embedBatch(ctx context.Context, k *KB, emb Embedder, f File, cs []Chunk) error {
	texts := make([]string, len(cs))
	ids := make([]int64, len(cs))
	for i, c := range cs {
		texts[i], ids[i] = c.Text, c.ID
		if c.Heading != "" {
			texts[i] = c.Heading + "\n" + c.Text
		}
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if err := s.checkDims(ctx, k, vecs); err != nil {
		return err
	}
	if err := s.st.SetVectors(ctx, f.ID, ids, vecs); err != nil {
		return err
	}
	s.mu.Lock()
	if x := s.indexes[k.ID]; x != nil {
		x.mu.Lock()
		for i, id := range ids {
			x.add(id, vecs[i])
		}
		x.mu.Unlock()
	}
	s.mu.Unlock()
	return nil
}

// checkDims learns a KB's dimensions from its model's first answer and refuses vectors of
// any other length afterwards.
func (s *Service) checkDims(ctx context.Context, k *KB, vecs [][]float32) error {
	for _, v := range vecs {
		if k.Dims == 0 {
			k.Dims = len(v)
			if err := s.st.UpdateKB(ctx, *k); err != nil {
				return err
			}
			s.changed()
		}
		if len(v) != k.Dims {
			return apperr.New(apperr.KBEmbeddingDims, "model %s answered %d dimensions, the knowledge base has %d", k.EmbedModel, len(v), k.Dims).
				WithParam("model", k.EmbedModel).WithParam("got", len(v)).WithParam("want", k.Dims)
		}
	}
	return nil
}

// fail records why a file stopped, unless it stopped because it was paused, cancelled or
// removed, or Cairn is closing (then its state already says what happens next).
func (s *Service) fail(ctx context.Context, f File, err error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return
	}
	e := apperr.From(err)
	code := e.Code
	if code == apperr.Unknown || code == apperr.Internal || code == "" {
		code = apperr.KBIngestFailed
	}
	msg := fmt.Sprintf("%s: %s", f.Name, err.Error())
	if ok, _ := s.st.SetState(s.ctx, f.ID, StateError, []State{StateParsing, StateEmbedding}, string(code), msg); ok {
		s.log.Info("kb: file failed", "file", f.Name, "code", code, "err", err)
		f.State, f.ErrorCode = StateError, string(code)
		s.emit(f, true)
	}
}

// emit sends a file's progress; between state changes at most one event per Coalesce.
func (s *Service) emit(f File, force bool) {
	s.pub.Lock()
	defer s.pub.Unlock()
	s.emitLocked(f, force)
}

// emitLocked is emit with s.pub held: whoever changes a file's state and then publishes
// it holds s.pub across both, so a window sees a file's states in the order they happened.
func (s *Service) emitLocked(f File, force bool) {
	if s.cfg.Bus == nil {
		return
	}
	s.mu.Lock()
	last := s.lastEmit[f.ID]
	t := time.Now()
	if !force && t.Sub(last) < s.cfg.Coalesce {
		s.mu.Unlock()
		return
	}
	s.lastEmit[f.ID] = t
	if f.State == StateDone || f.State == StateError || f.State == "removed" {
		delete(s.lastEmit, f.ID)
	}
	s.mu.Unlock()
	s.cfg.Bus.Publish(Topic(f.KBID), TypeFileProgress, Progress{KBID: f.KBID, FileID: f.ID, Name: f.Name, State: f.State,
		Chunks: f.Chunks, Embedded: f.Embedded, ErrorCode: f.ErrorCode})
}

func (s *Service) emitKB(ctx context.Context, kbID string) {
	files, err := s.st.Files(ctx, kbID)
	if err != nil {
		return
	}
	for _, f := range files {
		s.emit(f, true)
	}
}

// Idle reports whether no file waits for or is in ingest.
func (s *Service) Idle(ctx context.Context) (bool, error) {
	_, ok, err := s.st.NextWork(ctx)
	if err != nil || ok {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current.cancel == nil, nil
}

// WaitIdle waits until the queue is empty (paused and failed files do not count).
func (s *Service) WaitIdle(ctx context.Context, tick func()) error {
	for {
		idle, err := s.Idle(ctx)
		if err != nil || idle {
			return err
		}
		if tick != nil {
			tick()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
