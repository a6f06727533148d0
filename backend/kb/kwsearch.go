package kb

import (
	"container/heap"
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"time"
	"unicode/utf8"
)

// kwTerm is one cleaned query term as the in-memory index looks it up: the tokens FTS5
// would make of its phrase.
type kwTerm struct {
	hashes []uint64 // one for a word or a two-character CJK word, more for a phrase
	prefix rune     // a one-character CJK term: every cjk-column token starting with it
	expr   string   // a phrase's FTS5 expression, which finds the chunks it occurs in
}

func (s *Service) kwTerms(q string) []kwTerm {
	tok := tokenizer{base: s.latin}
	var out []kwTerm
	for _, t := range terms(q) {
		var kt kwTerm
		var first rune
		tok.each(t.phrase(), func(b []byte) {
			kt.hashes = append(kt.hashes, maphash.Bytes(s.seed, b))
			if first == 0 {
				first, _ = utf8.DecodeRune(b)
			}
		})
		switch {
		case t.single() && len(kt.hashes) == 1:
			kt.prefix, kt.hashes = first, nil
		case len(kt.hashes) > 1:
			kt.expr = t.expr()
		}
		out = append(out, kt)
	}
	return out
}

// kwWait is how long a search waits for a keyword index being built before it ranks in
// FTS5: a small KB's index is built in less, a large one's takes seconds.
const kwWait = 100 * time.Millisecond

// keywordIndexes are the in-memory keyword indexes of kbs, or nil when one is still
// being built after kwWait (its build starts here, on the service's context: the search
// that asked going away does not stop it). Until then searches rank in FTS5, so a search
// of a large KB never waits for a build.
func (s *Service) keywordIndexes(ctx context.Context, kbs []KB) []*kwIndex {
	s.mu.Lock()
	out := make([]*kwIndex, 0, len(kbs))
	for _, k := range kbs {
		x := s.kw[k.ID]
		if x == nil || x.stale.Load() {
			x = newKwIndex(s.seed, s.latin)
			s.kw[k.ID] = x
			s.bg.Add(1)
			go s.buildKeywords(k.ID, x)
		}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	s.mu.Unlock()
	if s.ftsOnly {
		return nil
	}
	wait := time.NewTimer(kwWait)
	defer wait.Stop()
	for _, x := range out {
		if x.ready.Load() {
			continue
		}
		select {
		case <-x.built:
		case <-wait.C:
			return nil
		case <-ctx.Done():
			return nil
		}
		if !x.ready.Load() {
			return nil
		}
	}
	return out
}

// buildKeywords fills an index from the KB's stored chunks. Ingest may add and remove
// chunks meanwhile: it waits for x.mu, and add skips a chunk the build already read.
func (s *Service) buildKeywords(kbID string, x *kwIndex) {
	defer s.bg.Done()
	defer close(x.built)
	x.mu.Lock()
	err := s.st.ChunkTexts(s.ctx, kbID, x.add)
	x.filled = err == nil
	x.mu.Unlock()
	if err != nil {
		if s.ctx.Err() == nil {
			s.log.Warn("kb: keyword index; FTS5 ranks meanwhile", "kb", kbID, "err", err)
		}
		s.mu.Lock()
		if s.kw[kbID] == x {
			delete(s.kw, kbID) // the next search tries again
		}
		s.mu.Unlock()
		return
	}
	x.ready.Store(true)
}

// indexChunks keeps a KB's in-memory indexes in step with what the store removed and
// added. It holds s.mu only to find them: a keyword build holds its index's lock for a
// second or more.
func (s *Service) indexChunks(kbID string, removed []int64, added []Chunk) {
	if len(removed) == 0 && len(added) == 0 {
		return
	}
	s.mu.Lock()
	vx, kx := s.indexes[kbID], s.kw[kbID]
	s.mu.Unlock()
	if vx != nil && len(removed) > 0 {
		vx.mu.Lock()
		vx.remove(removed)
		vx.mu.Unlock()
	}
	if kx != nil {
		kx.mu.Lock()
		if kx.filled {
			kx.remove(removed)
			for _, c := range added {
				kx.add(c.ID, c.Heading, c.Text)
			}
		}
		kx.mu.Unlock()
	}
}

// rankKeywords are the ids of rankScored, best first.
func (s *Service) rankKeywords(ctx context.Context, idx []*kwIndex, ts []kwTerm, and bool, limit int) ([]int64, error) {
	top, err := s.rankScored(ctx, idx, ts, and, limit)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(top))
	for i, c := range top {
		out[i] = c.id
	}
	return out, nil
}

// rankScored is what FTS5's MATCH … ORDER BY bm25 LIMIT gives, scored in Go over the
// given indexes: the chunks holding every term (and) or any term, by BM25 with FTS5's
// constants and formula (k1 1.2, b 0.75, an idf of at most 0 counted as 1e-6, the
// document length both columns' tokens). Its statistics (rows, average length, rows per
// term) are those of the KBs searched together, which is FTS5's when every KB is.
func (s *Service) rankScored(ctx context.Context, idx []*kwIndex, ts []kwTerm, and bool, limit int) ([]scoredID, error) {
	matches := make([][]int64, len(ts))
	for i, t := range ts {
		if t.expr != "" {
			m, err := s.st.MatchIDs(ctx, t.expr)
			if err != nil {
				return nil, fmt.Errorf("keyword phrase: %w", err)
			}
			matches[i] = m
		}
	}
	for _, x := range idx {
		x.mu.RLock()
	}
	defer func() {
		for _, x := range idx {
			x.mu.RUnlock()
		}
	}()
	lists := make([][][]posting, len(idx))
	hits := make([]float64, len(ts))
	var rows, toks float64
	for j, x := range idx {
		rows, toks = rows+float64(x.live()), toks+float64(x.total)
		lists[j] = make([][]posting, len(ts))
		for i, t := range ts {
			lists[j][i] = x.termPostings(t, matches[i])
			hits[i] += float64(len(lists[j][i]))
		}
	}
	if rows == 0 {
		return nil, nil
	}
	idf := make([]float64, len(ts))
	for i, n := range hits {
		idf[i] = math.Log((rows - n + 0.5) / (n + 0.5))
		if idf[i] <= 0 {
			idf[i] = 1e-6
		}
	}
	top := &topIDs{k: limit}
	for j, x := range idx {
		x.score(lists[j], idf, toks/rows, and, top)
	}
	return top.sorted(), nil
}

func (x *kwIndex) termPostings(t kwTerm, match []int64) []posting {
	switch {
	case t.prefix != 0:
		return x.prefix(t.prefix)
	case len(t.hashes) == 1:
		return x.postings(t.hashes[0])
	case len(t.hashes) > 1:
		return x.phrase(match, t.hashes)
	}
	return nil
}

// score walks the terms' postings together (docs ascending) and offers every doc that
// holds all of them (and) or any to top, with its BM25.
func (x *kwIndex) score(lists [][]posting, idf []float64, avgdl float64, and bool, top *topIDs) {
	const k1, b = 1.2, 0.75
	pos := make([]int, len(lists))
	freq := make([]float64, len(lists))
	for {
		doc, found := uint32(math.MaxUint32), false
		for i, l := range lists {
			if pos[i] < len(l) {
				doc, found = min(doc, l[pos[i]].doc), true
			} else if and {
				return
			}
		}
		if !found {
			return
		}
		n := 0
		for i, l := range lists {
			freq[i] = 0
			if pos[i] < len(l) && l[pos[i]].doc == doc {
				freq[i] = float64(l[pos[i]].tf)
				pos[i]++
				n++
			}
		}
		if and && n < len(lists) {
			continue
		}
		d := float64(x.lens[doc])
		var sc float64
		for i, f := range freq {
			sc += idf[i] * ((f * (k1 + 1.0)) / (f + k1*(1-b+b*d/avgdl)))
		}
		top.offer(scoredID{id: x.ids[doc], score: sc})
	}
}

type scoredID struct {
	id    int64
	score float64
}

// topIDs keeps the k best scores offered (ties: the lower chunk id), the worst at the
// root of a min-heap.
type topIDs struct {
	k int
	h []scoredID
}

func worse(a, b scoredID) bool { return a.score < b.score || a.score == b.score && a.id > b.id }

func (t *topIDs) Len() int           { return len(t.h) }
func (t *topIDs) Less(i, j int) bool { return worse(t.h[i], t.h[j]) }
func (t *topIDs) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topIDs) Push(v any)         { t.h = append(t.h, v.(scoredID)) }
func (t *topIDs) Pop() any {
	v := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return v
}

func (t *topIDs) offer(c scoredID) {
	switch {
	case t.k <= 0:
	case len(t.h) < t.k:
		heap.Push(t, c)
	case worse(t.h[0], c):
		t.h[0] = c
		heap.Fix(t, 0)
	}
}

// sorted is what was kept, best first.
func (t *topIDs) sorted() []scoredID {
	s := slices.Clone(t.h)
	slices.SortFunc(s, func(a, b scoredID) int {
		if worse(b, a) {
			return -1
		}
		if worse(a, b) {
			return 1
		}
		return 0
	})
	return s
}
