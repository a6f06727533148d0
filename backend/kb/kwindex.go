package kb

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// kwIndex is one KB's keyword index in memory: for every term the chunks holding it with
// how often (postings), and every chunk's length in tokens, so that BM25 is scored in Go.
// FTS5's bm25() looks up each matching row's length in kb_fts_docsize and goes through
// its auxiliary-function API row by row, about 1.5 µs a row in modernc's SQLite: 60 ms
// for a query matching a third of 100k chunks, where walking postings here takes about
// one. kb_fts stays the truth on disk (the index is built from kb_chunks the first time
// a KB is searched, and is what searches use before that); ingest and removal keep both
// in step.
//
// Terms are kept by a 64-bit hash of their text, not the text: at 100k chunks of
// Chinese prose there are millions of distinct bigrams, and the strings would cost more
// than their postings. Two terms sharing a hash (about one chance in 10^7 at a million
// terms) would share postings.
type kwIndex struct {
	built chan struct{} // closed once the first build ended
	ready atomic.Bool   // built without error: searches use the index
	stale atomic.Bool   // lost step with the store (a chunk id out of order): rebuilt

	mu sync.RWMutex
	// filled says the build has read the store (set under mu): until then ingest leaves
	// the index alone, as the build, which reads after ingest's commit, sees its chunks.
	// Added before, a newer chunk would make the build's older ones look out of order.
	filled bool
	seed   maphash.Seed
	tok    tokenizer
	ids    []int64  // doc → chunk id, ascending
	lens   []uint32 // doc → tokens in both columns (bm25's document length)
	dead   []uint64 // a bit per removed doc, until compact
	ndead  int
	total  int64             // tokens of the live docs
	dict   map[uint64]uint32 // term hash → term
	lists  []plist           // term → postings
	first  map[rune][]uint32 // the cjk column's terms by first character: one-character queries are prefix queries

	scratch map[uint64]termCount // add's, reused
}

type termCount struct {
	tf    uint32
	first rune // the term's first character when it is a cjk-column term, else 0
}

// plist is one term's postings: (doc - previous doc, tf) as uvarints, docs ascending;
// two or three bytes a posting.
type plist struct {
	b    []byte
	next uint32 // the last doc appended + 1; 0 before the first
	n    uint32 // postings, so a decode allocates once
}

func (p *plist) append(doc, tf uint32) {
	p.b = binary.AppendUvarint(p.b, uint64(doc+1-p.next))
	p.b = binary.AppendUvarint(p.b, uint64(tf))
	p.next = doc + 1
	p.n++
}

type posting struct{ doc, tf uint32 }

func newKwIndex(seed maphash.Seed, base *latinBase) *kwIndex {
	return &kwIndex{built: make(chan struct{}), seed: seed, tok: tokenizer{base: base},
		dict: map[uint64]uint32{}, first: map[rune][]uint32{}, scratch: map[uint64]termCount{}}
}

func (x *kwIndex) isDead(d int) bool { return x.dead[d/64]&(1<<(d%64)) != 0 }

func (x *kwIndex) live() int { return len(x.ids) - x.ndead }

// find is the doc of a chunk id.
func (x *kwIndex) find(id int64) (int, bool) {
	d := sort.Search(len(x.ids), func(i int) bool { return x.ids[i] >= id })
	return d, d < len(x.ids) && x.ids[d] == id
}

// add indexes a chunk as ReplaceChunks gives it to kb_fts (heading, a newline, text). A
// chunk already there is left alone (a build that read it while ingest was adding it).
// SQLite hands out ids above the largest live one, so docs stay in id order; when the
// largest ids were removed their doc slots are compacted first.
func (x *kwIndex) add(id int64, heading, text string) {
	if n := len(x.ids); n > 0 && id <= x.ids[n-1] {
		if d, ok := x.find(id); ok && !x.isDead(d) {
			return
		}
		x.compact()
		if n := len(x.ids); n > 0 && id <= x.ids[n-1] {
			x.stale.Store(true)
			return
		}
	}
	all := heading + "\n" + text
	clear(x.scratch)
	n := x.tok.each(Words(all), func(t []byte) {
		h := maphash.Bytes(x.seed, t)
		c := x.scratch[h]
		c.tf++
		x.scratch[h] = c
	})
	n += x.tok.each(Bigrams(all), func(t []byte) {
		h := maphash.Bytes(x.seed, t)
		c := x.scratch[h]
		c.tf++
		c.first, _ = utf8.DecodeRune(t)
		x.scratch[h] = c
	})
	doc := uint32(len(x.ids))
	x.ids = append(x.ids, id)
	x.lens = append(x.lens, uint32(n))
	if int(doc)/64 >= len(x.dead) {
		x.dead = append(x.dead, 0)
	}
	x.total += int64(n)
	for h, c := range x.scratch {
		t, ok := x.dict[h]
		if !ok {
			t = uint32(len(x.lists))
			x.dict[h] = t
			x.lists = append(x.lists, plist{})
			if c.first != 0 {
				x.first[c.first] = append(x.first[c.first], t)
			}
		}
		x.lists[t].append(doc, c.tf)
	}
}

// remove drops chunks; their postings go at the next compaction, which runs once a
// quarter of the docs are removed ones (bm25's statistics leave them out at once).
func (x *kwIndex) remove(ids []int64) {
	for _, id := range ids {
		if d, ok := x.find(id); ok && !x.isDead(d) {
			x.dead[d/64] |= 1 << (d % 64)
			x.ndead++
			x.total -= int64(x.lens[d])
		}
	}
	if x.ndead > 0 && x.ndead*4 >= len(x.ids) {
		x.compact()
	}
}

// compact rewrites the postings without the removed docs, renumbering the rest, and
// forgets terms no doc holds any more.
func (x *kwIndex) compact() {
	if x.ndead == 0 {
		return
	}
	renum := make([]uint32, len(x.ids)) // new doc + 1; 0: removed
	w := 0
	for d := range x.ids {
		if !x.isDead(d) {
			renum[d] = uint32(w + 1)
			x.ids[w], x.lens[w] = x.ids[d], x.lens[d]
			w++
		}
	}
	x.ids, x.lens = slices.Clip(x.ids[:w]), slices.Clip(x.lens[:w])
	x.dead, x.ndead = make([]uint64, (w+63)/64), 0
	keep := make([]uint32, len(x.lists)) // new term + 1; 0: gone
	lists := make([]plist, 0, len(x.lists))
	var tmp plist
	for t := range x.lists {
		tmp = plist{b: tmp.b[:0]}
		for _, p := range x.lists[t].decode(nil, nil) {
			if nd := renum[p.doc]; nd != 0 {
				tmp.append(nd-1, p.tf)
			}
		}
		if len(tmp.b) > 0 {
			keep[t] = uint32(len(lists) + 1)
			lists = append(lists, plist{b: slices.Clone(tmp.b), next: tmp.next, n: tmp.n})
		}
	}
	x.lists = lists
	for h, t := range x.dict {
		if keep[t] == 0 {
			delete(x.dict, h)
		} else {
			x.dict[h] = keep[t] - 1
		}
	}
	for r, ts := range x.first {
		out := ts[:0]
		for _, t := range ts {
			if keep[t] != 0 {
				out = append(out, keep[t]-1)
			}
		}
		if len(out) == 0 {
			delete(x.first, r)
		} else {
			x.first[r] = slices.Clip(out)
		}
	}
}

// decode appends a list's postings to out, leaving out removed docs when dead is given.
func (p *plist) decode(out []posting, dead []uint64) []posting {
	out = slices.Grow(out, int(p.n))
	b := p.b
	cur := uint32(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		tf, m := binary.Uvarint(b[n:])
		b = b[n+m:]
		cur += uint32(d)
		doc := cur - 1
		if dead != nil && dead[doc/64]&(1<<(doc%64)) != 0 {
			continue
		}
		out = append(out, posting{doc: doc, tf: uint32(tf)})
	}
	return out
}

// postings are the live docs holding a token.
func (x *kwIndex) postings(h uint64) []posting {
	t, ok := x.dict[h]
	if !ok {
		return nil
	}
	return x.lists[t].decode(nil, x.dead)
}

// prefix are the live docs holding a cjk-column token that starts with r, with the
// number of such tokens each holds (FTS5's count for a prefix query).
func (x *kwIndex) prefix(r rune) []posting {
	var all []posting
	for _, t := range x.first[r] {
		all = x.lists[t].decode(all, x.dead)
	}
	slices.SortFunc(all, func(a, b posting) int { return int(a.doc) - int(b.doc) })
	out := all[:0]
	for _, p := range all {
		if n := len(out); n > 0 && out[n-1].doc == p.doc {
			out[n-1].tf += p.tf
			continue
		}
		out = append(out, p)
	}
	return out
}

// phrase are the live docs among ids (the chunks FTS5 matched the phrase in, ascending)
// with the phrase's frequency taken as its rarest token's: exact unless a token recurs
// elsewhere in the chunk, which bm25 then weighs a little higher than FTS5 does.
func (x *kwIndex) phrase(ids []int64, hashes []uint64) []posting {
	var out []posting
	for _, id := range ids {
		if d, ok := x.find(id); ok && !x.isDead(d) {
			out = append(out, posting{doc: uint32(d), tf: ^uint32(0)})
		}
	}
	for _, h := range hashes {
		ps := x.postings(h)
		j := 0
		for i := range out {
			for j < len(ps) && ps[j].doc < out[i].doc {
				j++
			}
			if j < len(ps) && ps[j].doc == out[i].doc {
				out[i].tf = min(out[i].tf, ps[j].tf)
			}
		}
	}
	for i := range out {
		if out[i].tf == ^uint32(0) {
			out[i].tf = 1
		}
	}
	return out
}

// memory is about the bytes the index holds: postings, their headers, the docs and an
// estimate of the maps' entries (a Go map spends about 24 bytes on a uint64 → uint32
// entry at its usual load).
func (x *kwIndex) memory() int64 {
	n := 8*int64(cap(x.ids)) + 4*int64(cap(x.lens)) + 8*int64(cap(x.dead)) + 32*int64(cap(x.lists)) + 24*int64(len(x.dict))
	for _, p := range x.lists {
		n += int64(cap(p.b))
	}
	for _, ts := range x.first {
		n += 48 + 4*int64(cap(ts))
	}
	return n
}
