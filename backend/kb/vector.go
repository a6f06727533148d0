package kb

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// vecIndex is one KB's vectors in memory as int8 codes in one contiguous block: a
// quarter of the bytes of float32, so a scan reads 77 MB instead of 307 MB at 100k
// 768-d vectors and 1M of them fit in under a gigabyte. A search scans the codes on
// every core for candidates and rescores those with the float32 vectors from SQLite,
// which holds the truth; the block is rebuilt from the stored codes.
type vecIndex struct {
	load    sync.Once // Service.index fills the block once
	loadErr error
	mu      sync.RWMutex
	dims    int
	ids     []int64
	codes   []int8    // row r is codes[r*dims:(r+1)*dims]
	scales  []float32 // codes of row r times scales[r] approximate its normalized vector
}

func normalize(v []float32) []float32 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	out := make([]float32, len(v))
	if s == 0 {
		return out
	}
	n := float32(1 / math.Sqrt(s))
	for i, f := range v {
		out[i] = f * n
	}
	return out
}

// quantize writes v's symmetric int8 code (its largest component maps to ±127) into out
// and returns the scale that maps the code back.
func quantize(v []float32, out []int8) float32 {
	var m float32
	for _, f := range v {
		m = max(m, float32(math.Abs(float64(f))))
	}
	if m == 0 {
		clear(out)
		return 0
	}
	k := 127 / m
	for i, f := range v {
		out[i] = int8(math.Round(float64(f * k)))
	}
	return m / 127
}

// encodeCode is a vector's stored code (column kb_chunks.code): the float32 scale, little
// endian, then one signed byte per dimension of the normalized vector.
func encodeCode(v []float32) []byte {
	n := normalize(v)
	b := make([]byte, 4+len(n))
	c := make([]int8, len(n))
	binary.LittleEndian.PutUint32(b, math.Float32bits(quantize(n, c)))
	for i, x := range c {
		b[4+i] = byte(x)
	}
	return b
}

// reserve makes room for n vectors of d dimensions before a load.
func (x *vecIndex) reserve(n, d int) {
	x.ids = slices.Grow(x.ids, n)
	x.scales = slices.Grow(x.scales, n)
	x.codes = slices.Grow(x.codes, n*d)
}

// add appends a vector; one of another length is left out (it belongs to another model).
func (x *vecIndex) add(id int64, v []float32) { x.addCode(id, encodeCode(v)) }

// addCode appends a stored code (encodeCode's layout).
func (x *vecIndex) addCode(id int64, code []byte) {
	if len(code) < 5 {
		return
	}
	d := len(code) - 4
	if x.dims == 0 {
		x.dims = d
	}
	if d != x.dims {
		return
	}
	x.ids = append(x.ids, id)
	x.scales = append(x.scales, math.Float32frombits(binary.LittleEndian.Uint32(code)))
	for _, b := range code[4:] {
		x.codes = append(x.codes, int8(b))
	}
}

// remove drops the given ids, keeping the block contiguous.
func (x *vecIndex) remove(ids []int64) {
	if len(ids) == 0 || len(x.ids) == 0 {
		return
	}
	gone := make(map[int64]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
	}
	w := 0
	for r, id := range x.ids {
		if gone[id] {
			continue
		}
		if w != r {
			x.ids[w], x.scales[w] = id, x.scales[r]
			copy(x.codes[w*x.dims:(w+1)*x.dims], x.codes[r*x.dims:(r+1)*x.dims])
		}
		w++
	}
	x.ids, x.scales, x.codes = x.ids[:w], x.scales[:w], x.codes[:w*x.dims]
}

// memory is the bytes the block holds.
func (x *vecIndex) memory() int64 {
	return int64(cap(x.codes)) + 8*int64(cap(x.ids)) + 4*int64(cap(x.scales))
}

type scored struct {
	id    int64
	score float32
}

// best keeps the k highest scores seen, the lowest at the root of a min-heap.
type best struct {
	k int
	h []scored
}

func (b *best) push(s scored) {
	if len(b.h) < b.k {
		b.h = append(b.h, s)
		for i := len(b.h) - 1; i > 0; {
			p := (i - 1) / 2
			if b.h[p].score <= b.h[i].score {
				break
			}
			b.h[p], b.h[i] = b.h[i], b.h[p]
			i = p
		}
		return
	}
	if s.score <= b.h[0].score {
		return
	}
	b.h[0] = s
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(b.h) && b.h[l].score < b.h[m].score {
			m = l
		}
		if l+1 < len(b.h) && b.h[l+1].score < b.h[m].score {
			m = l + 1
		}
		if m == i {
			return
		}
		b.h[m], b.h[i] = b.h[i], b.h[m]
		i = m
	}
}

// floor is the score a row must beat to get in; -Inf until k rows are in.
func (b *best) floor() float32 {
	if len(b.h) < b.k {
		return float32(math.Inf(-1))
	}
	return b.h[0].score
}

// queryCode is the query as int16 lanes for the kernel (its int8 code, widened).
func queryCode(q []float32) []int16 {
	c := make([]int8, len(q))
	quantize(normalize(q), c)
	out := make([]int16, len(q))
	for i, v := range c {
		out[i] = int16(v)
	}
	return out
}

// candidates is the r rows with the highest int8 scores, best first: the rows are split
// across the cores, each part keeps its own heap, and the heaps are merged.
func (x *vecIndex) candidates(q []float32, r int) []scored {
	n := len(x.ids)
	if n == 0 || r <= 0 || len(q) != x.dims {
		return nil
	}
	qc := queryCode(q)
	parts := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	per := (n + parts - 1) / parts
	heaps := make([]best, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func(p, lo, hi int) {
			defer wg.Done()
			b := best{k: r, h: make([]scored, 0, r)}
			d := x.dims
			for row := lo; row < hi; row++ {
				s := float32(dotInt8(x.codes[row*d:(row+1)*d], qc)) * x.scales[row]
				if s > b.floor() {
					b.push(scored{x.ids[row], s})
				}
			}
			heaps[p] = b
		}(p, p*per, min(n, (p+1)*per))
	}
	wg.Wait()
	var all []scored
	for _, h := range heaps {
		all = append(all, h.h...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	return all[:min(r, len(all))]
}

// rescoreCount is how many int8 candidates are rescored with float32 for a top k: enough
// that the quantization error (about 1e-3 of a cosine at 768-d) never drops a true
// neighbour at 100k clustered vectors (TestInt8Recall), cheap to read (a few ms).
func rescoreCount(k int) int { return max(4*k, 64) }

// fetchVectors reads float32 vectors by chunk id (Store.VectorsOf).
type fetchVectors func(ctx context.Context, ids []int64) (map[int64][]float32, error)

// topK is the k nearest rows by cosine: int8 candidates under the read lock, then the
// float32 rescoring outside it. A chunk removed in between is left out; when the
// vectors cannot be read the int8 order stands.
func (x *vecIndex) topK(ctx context.Context, q []float32, k int, fetch fetchVectors) ([]scored, error) {
	x.mu.RLock()
	cands := x.candidates(q, rescoreCount(k))
	x.mu.RUnlock()
	if len(cands) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	vecs, err := fetch(ctx, ids)
	if err != nil {
		return cands[:min(k, len(cands))], err
	}
	return rescore(q, cands, vecs, k), nil
}

// rescore orders the candidates by their exact cosine with q and keeps k.
func rescore(q []float32, cands []scored, vecs map[int64][]float32, k int) []scored {
	nq := normalize(q)
	out := make([]scored, 0, len(cands))
	seen := make(map[int64]bool, len(cands))
	for _, c := range cands {
		v, ok := vecs[c.id]
		if !ok || len(v) != len(nq) || seen[c.id] {
			continue // gone since the scan, another model's, or added twice while loading
		}
		seen[c.id] = true
		out = append(out, scored{c.id, dot(nq, normalize(v))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out[:min(k, len(out))]
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
