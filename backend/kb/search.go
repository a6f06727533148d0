package kb

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SearchRequest is a search over some KBs (all when KBs is empty, by id or name).
type SearchRequest struct {
	Query string   `json:"query"`
	TopK  int      `json:"topK,omitempty"`
	KBs   []string `json:"kbs,omitempty"`
}

// MaxTopK bounds a search's results.
const MaxTopK = 50

// rrfK is the reciprocal rank fusion constant.
const rrfK = 60

// Search finds chunks by keywords and, in KBs with an embedding model, by meaning, and
// fuses both rankings. A failing embedding provider leaves the keyword results.
func (s *Service) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	q := strings.TrimSpace(req.Query)
	if q == "" {
		return nil, apperr.New(apperr.InvalidArgument, "query is empty")
	}
	k := req.TopK
	if k <= 0 {
		k = 8
	}
	k = min(k, MaxTopK)
	kbs, err := s.resolve(ctx, req.KBs)
	if err != nil || len(kbs) == 0 {
		return []Hit{}, err
	}
	pool := max(3*k, 30)
	scope, err := s.scope(ctx, kbs)
	if err != nil {
		return nil, err
	}
	// The two retrievers run at once: the vector side mostly waits for the query's
	// embedding and then scans on every core, the keyword side waits on SQLite.
	var vec []int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		vec = s.vector(ctx, kbs, q, pool)
	}()
	kw, err := s.keyword(ctx, kbs, scope, q, pool)
	<-done
	if err != nil {
		return nil, err
	}
	return s.hits(ctx, kbs, s.rerank(ctx, kbs, q, fuse(kw, vec, pool), k), q)
}

// scope is the KB filter for the keyword query: none when kbs are all the KBs there are,
// so that FTS5 ranks without a join.
func (s *Service) scope(ctx context.Context, kbs []KB) ([]string, error) {
	all, err := s.st.KBs(ctx)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, b := range kbs {
		want[b.ID] = true
	}
	if len(want) == len(all) {
		covered := true
		for _, b := range all {
			covered = covered && want[b.ID]
		}
		if covered {
			return nil, nil
		}
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	return ids, nil
}

func (s *Service) resolve(ctx context.Context, refs []string) ([]KB, error) {
	if len(refs) == 0 {
		return s.st.KBs(ctx)
	}
	var out []KB
	for _, r := range refs {
		k, err := s.st.KB(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// keyword runs the AND query and fills up with the OR query: in the KBs' in-memory
// indexes once they are built, in FTS5 (kbIDs its KB filter) until then.
func (s *Service) keyword(ctx context.Context, kbs []KB, kbIDs []string, q string, limit int) ([]int64, error) {
	var runs []func() ([]int64, error)
	if idx := s.keywordIndexes(ctx, kbs); idx != nil {
		ts := s.kwTerms(q)
		if len(ts) > 0 {
			runs = append(runs, func() ([]int64, error) { return s.rankKeywords(ctx, idx, ts, true, limit) })
		}
		if len(ts) > 1 {
			runs = append(runs, func() ([]int64, error) { return s.rankKeywords(ctx, idx, ts, false, limit) })
		}
	} else {
		for _, m := range MatchExprs(q) {
			runs = append(runs, func() ([]int64, error) { return s.st.Keyword(ctx, kbIDs, m, limit) })
		}
	}
	var out []int64
	seen := map[int64]bool{}
	for _, run := range runs {
		got, err := run()
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		if len(out) >= limit {
			break
		}
	}
	return out[:min(len(out), limit)], nil
}

// vector searches the KBs that have vectors, one query embedding per model.
func (s *Service) vector(ctx context.Context, kbs []KB, q string, limit int) []int64 {
	qv := map[string][]float32{}
	var all []scored
	for _, k := range kbs {
		if !k.HasEmbedding() || k.Dims == 0 || s.cfg.Embedders == nil {
			continue
		}
		model := k.EmbedProvider + "/" + k.EmbedModel
		v, ok := qv[model]
		if !ok {
			emb, err := s.cfg.Embedders(ctx, k.EmbedProvider, k.EmbedModel)
			if err == nil {
				var vs [][]float32
				if vs, err = emb.Embed(ctx, []string{q}); err == nil {
					v = vs[0]
				}
			}
			if err != nil {
				s.log.Warn("kb: query embedding failed; keywords only", "model", model, "err", err)
			}
			qv[model] = v
		}
		if v == nil {
			continue
		}
		x, err := s.index(ctx, k.ID)
		if err != nil {
			s.log.Warn("kb: vectors", "kb", k.Name, "err", err)
			continue
		}
		got, err := x.topK(ctx, v, limit, s.st.VectorsOf)
		if err != nil {
			s.log.Warn("kb: rescoring vectors; int8 order kept", "kb", k.Name, "err", err)
		}
		all = append(all, got...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	out := make([]int64, 0, min(limit, len(all)))
	for _, sc := range all[:min(limit, len(all))] {
		out = append(out, sc.id)
	}
	return out
}

// index is a KB's vector block, loaded from the stored codes the first time it is asked
// for; vectors stored before codes existed get theirs first. The load (seconds at 1M
// vectors) holds only the block's own lock, not s.mu, so progress events and other KBs
// go on meanwhile; searches of this KB wait for it. It runs on the service's context, so
// the search that started it going away does not fail the others waiting.
func (s *Service) index(ctx context.Context, kbID string) (*vecIndex, error) {
	s.mu.Lock()
	x := s.indexes[kbID]
	if x == nil {
		x = &vecIndex{}
		s.indexes[kbID] = x // ingest adds to it from now on, after the load
	}
	s.mu.Unlock()
	x.load.Do(func() {
		x.mu.Lock()
		x.loadErr = s.loadIndex(s.ctx, kbID, x)
		x.mu.Unlock()
		if x.loadErr != nil { // the next search tries again
			s.mu.Lock()
			if s.indexes[kbID] == x {
				delete(s.indexes, kbID)
			}
			s.mu.Unlock()
		}
	})
	return x, x.loadErr
}

// loadIndex fills an empty block from the stored codes, with x.mu held.
func (s *Service) loadIndex(ctx context.Context, kbID string, x *vecIndex) error {
	if n, err := s.st.FillCodes(ctx, kbID); err != nil {
		return fmt.Errorf("fill vector codes: %w", err)
	} else if n > 0 {
		s.log.Info("kb: vector codes written for older vectors", "kb", kbID, "count", n)
	}
	if k, err := s.st.KB(ctx, kbID); err == nil && k.Dims > 0 {
		if files, err := s.st.Files(ctx, kbID); err == nil {
			n := 0
			for _, f := range files {
				n += f.Embedded
			}
			x.reserve(n, k.Dims) // appending would leave up to a quarter of the block unused
		}
	}
	if err := s.st.Codes(ctx, kbID, x.addCode); err != nil {
		return fmt.Errorf("load vector codes: %w", err)
	}
	return nil
}

type fused struct {
	id    int64
	score float64
	via   []string
}

// fuse is reciprocal rank fusion of the keyword and vector rankings.
func fuse(kw, vec []int64, k int) []fused {
	by := map[int64]*fused{}
	var order []*fused
	add := func(ids []int64, via string) {
		for r, id := range ids {
			f := by[id]
			if f == nil {
				f = &fused{id: id}
				by[id] = f
				order = append(order, f)
			}
			f.score += 1 / float64(rrfK+r+1)
			f.via = append(f.via, via)
		}
	}
	add(kw, "keyword")
	add(vec, "vector")
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := make([]fused, 0, min(k, len(order)))
	for _, f := range order[:min(k, len(order))] {
		out = append(out, *f)
	}
	return out
}

func (s *Service) hits(ctx context.Context, kbs []KB, fs []fused, q string) ([]Hit, error) {
	ids := make([]int64, len(fs))
	for i, f := range fs {
		ids[i] = f.id
	}
	chunks, err := s.st.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[int64]Chunk{}
	for _, c := range chunks {
		byID[c.ID] = c
	}
	names := map[string]string{}
	for _, k := range kbs {
		names[k.ID] = k.Name
	}
	files := map[string]string{}
	out := []Hit{}
	for _, f := range fs {
		c, ok := byID[f.id]
		if !ok {
			continue
		}
		if _, ok := files[c.FileID]; !ok {
			fl, err := s.st.File(ctx, c.FileID)
			if err != nil {
				continue
			}
			files[c.FileID] = fl.Name
		}
		out = append(out, Hit{KB: names[c.KBID], KBID: c.KBID, FileID: c.FileID, File: files[c.FileID], ChunkID: c.ID, Index: c.Index,
			Heading: c.Heading, PageStart: c.PageStart, PageEnd: c.PageEnd, LineStart: c.LineStart, LineEnd: c.LineEnd,
			Snippet: Snippet(c.Text, q, 240), Score: f.score, Via: f.via})
	}
	return out, nil
}
