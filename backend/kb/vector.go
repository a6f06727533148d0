package kb

import (
	"container/heap"
	"math"
	"runtime"
	"sort"
	"sync"
)

// vecIndex is one KB's vectors in memory, normalized, in one contiguous block, searched
// exactly on every core. SQLite holds the truth; the block is rebuilt from it.
type vecIndex struct {
	mu   sync.RWMutex
	dims int
	ids  []int64
	data []float32
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

// add appends a vector; one of another length is left out (it belongs to another model).
func (x *vecIndex) add(id int64, v []float32) {
	if x.dims == 0 {
		x.dims = len(v)
	}
	if len(v) != x.dims {
		return
	}
	x.ids = append(x.ids, id)
	x.data = append(x.data, normalize(v)...)
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
			x.ids[w] = id
			copy(x.data[w*x.dims:(w+1)*x.dims], x.data[r*x.dims:(r+1)*x.dims])
		}
		w++
	}
	x.ids = x.ids[:w]
	x.data = x.data[:w*x.dims]
}

type scored struct {
	id    int64
	score float32
}

// minHeap keeps the best k seen so far with the worst on top.
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func dot(a, b []float32) float32 {
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

// topK is an exact cosine search: the rows are split across the cores, each keeps its
// own heap, and the heaps are merged.
func (x *vecIndex) topK(q []float32, k int) []scored {
	n := len(x.ids)
	if n == 0 || k <= 0 || len(q) != x.dims {
		return nil
	}
	q = normalize(q)
	parts := min(runtime.GOMAXPROCS(0), max(1, n/2048))
	per := (n + parts - 1) / parts
	heaps := make([]minHeap, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := p*per, min(n, (p+1)*per)
		wg.Add(1)
		go func(p, lo, hi int) {
			defer wg.Done()
			h := make(minHeap, 0, k+1)
			for r := lo; r < hi; r++ {
				s := dot(q, x.data[r*x.dims:(r+1)*x.dims])
				if len(h) < k {
					heap.Push(&h, scored{x.ids[r], s})
				} else if s > h[0].score {
					h[0] = scored{x.ids[r], s}
					heap.Fix(&h, 0)
				}
			}
			heaps[p] = h
		}(p, lo, hi)
	}
	wg.Wait()
	var all []scored
	for _, h := range heaps {
		all = append(all, h...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	return all[:min(k, len(all))]
}
