package kb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"
	_ "modernc.org/sqlite/vec" // sqlite-vec's vec0, as bundled with modernc.org/sqlite
)

// vecData is a clustered synthetic set (clusters of about 1,000 vectors, σ 0.5 around
// N(0,1) centres) with queries drawn the same way but not in the set.
type vecData struct {
	dims    int
	vecs    [][]float32 // normalized
	queries [][]float32
}

func clustered(r *rand.Rand, n, d, queries int) vecData {
	clusters := max(1, n/1000)
	centers := make([][]float32, clusters)
	for c := range centers {
		centers[c] = make([]float32, d)
		for j := range centers[c] {
			centers[c][j] = float32(r.NormFloat64())
		}
	}
	point := func() []float32 {
		c := centers[r.IntN(clusters)]
		v := make([]float32, d)
		for j := range v {
			v[j] = c[j] + 0.5*float32(r.NormFloat64())
		}
		return normalize(v)
	}
	out := vecData{dims: d, vecs: make([][]float32, n)}
	for i := range out.vecs {
		out.vecs[i] = point()
	}
	for range queries {
		out.queries = append(out.queries, point())
	}
	return out
}

// bruteTopK is the exact float32 top k over the normalized set on every core: the pure
// Go baseline and the ground truth for recall. It returns positions in vecs.
func bruteTopK(vecs [][]float32, q []float32, k int) []int64 {
	parts := runtime.GOMAXPROCS(0)
	per := (len(vecs) + parts - 1) / parts
	heaps := make([]best, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			b := best{k: k}
			for i := p * per; i < min(len(vecs), (p+1)*per); i++ {
				if s := dot(q, vecs[i]); s > b.floor() {
					b.push(scored{int64(i), s})
				}
			}
			heaps[p] = b
		}(p)
	}
	wg.Wait()
	var all []scored
	for _, h := range heaps {
		all = append(all, h.h...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	out := make([]int64, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.id)
	}
	return out
}

// vecPeer is one system under test: build once, then answer top-10 queries with
// positions in the set.
type vecPeer struct {
	name   string
	memory string
	query  func(q []float32) ([]int64, error)
	times  []time.Duration
	cpu    []time.Duration // process CPU time per query
	hits   int
}

// vecRow is one line of the printed table.
type vecRow struct {
	name          string
	p50, p95      time.Duration
	cpu50, cpu95  time.Duration
	recall        float64
	memory, build string
	bytes         int64 // Cairn's block
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

// runPeers asks every peer every query, interleaved query by query so that load on the
// machine falls on all of them alike, and scores recall@10 against the exact answer.
func runPeers(data vecData, peers []*vecPeer) error {
	for _, q := range data.queries {
		want := map[int64]bool{}
		for _, id := range bruteTopK(data.vecs, q, 10) {
			want[id] = true
		}
		for _, p := range peers {
			t0, c0 := time.Now(), cpuNow()
			got, err := p.query(q)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.times, p.cpu = append(p.times, time.Since(t0)), append(p.cpu, cpuNow()-c0)
			for _, id := range got {
				if want[id] {
					p.hits++
				}
			}
		}
	}
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func heapNow() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// chromemPeer holds the set in a chromem-go collection (documents with given embeddings).
func chromemPeer(ctx context.Context, data vecData) (*vecPeer, time.Duration, error) {
	before := heapNow()
	t0 := time.Now()
	db := chromem.NewDB()
	c, err := db.CreateCollection("bench", nil, func(context.Context, string) ([]float32, error) {
		return nil, fmt.Errorf("no embedding function in the benchmark")
	})
	if err != nil {
		return nil, 0, err
	}
	const batch = 10_000
	for lo := 0; lo < len(data.vecs); lo += batch {
		docs := make([]chromem.Document, 0, batch)
		for i := lo; i < min(len(data.vecs), lo+batch); i++ {
			docs = append(docs, chromem.Document{ID: strconv.Itoa(i), Embedding: data.vecs[i], Content: "x"})
		}
		if err := c.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0)); err != nil {
			return nil, 0, err
		}
	}
	build := time.Since(t0)
	own := heapNow() - before
	p := &vecPeer{name: "chromem-go v0.7.0 (float32, exact)",
		memory: fmt.Sprintf("%s + the caller's float32 vectors (%s)", mib(own), mib(int64(len(data.vecs)*data.dims*4)))}
	p.query = func(q []float32) ([]int64, error) {
		res, err := c.QueryEmbedding(ctx, q, 10, nil, nil)
		if err != nil {
			return nil, err
		}
		out := make([]int64, len(res))
		for i, r := range res {
			n, _ := strconv.Atoi(r.ID)
			out[i] = int64(n)
		}
		return out, nil
	}
	return p, build, nil
}

// sqliteVecPeer holds the set in a vec0 table (float32, cosine) of its own database file.
func sqliteVecPeer(ctx context.Context, dir string, data vecData) (*vecPeer, time.Duration, error) {
	path := filepath.Join(dir, "vec.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	if err != nil {
		return nil, 0, err
	}
	db.SetMaxOpenConns(1)
	t0 := time.Now()
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE VIRTUAL TABLE v USING vec0(embedding float[%d] distance_metric=cosine)", data.dims)); err != nil {
		return nil, 0, err
	}
	const batch = 5_000
	for lo := 0; lo < len(data.vecs); lo += batch {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, 0, err
		}
		for i := lo; i < min(len(data.vecs), lo+batch); i++ {
			if _, err := tx.ExecContext(ctx, "INSERT INTO v(rowid, embedding) VALUES (?, ?)", i+1, encodeVector(data.vecs[i])); err != nil {
				tx.Rollback()
				return nil, 0, err
			}
		}
		if err := tx.Commit(); err != nil {
			return nil, 0, err
		}
	}
	build := time.Since(t0)
	st, _ := os.Stat(path)
	p := &vecPeer{name: "sqlite-vec (modernc.org/sqlite/vec, vec0 float32, exact)", memory: fmt.Sprintf("on disk (%s file), SQLite's page cache", mib(st.Size()))}
	p.query = func(q []float32) ([]int64, error) {
		rows, err := db.QueryContext(ctx, "SELECT rowid FROM v WHERE embedding MATCH ? AND k = 10 ORDER BY distance", encodeVector(q))
		if err != nil {
			return nil, err
		}
		ids, err := scanIDs(rows)
		for i := range ids {
			ids[i]--
		}
		return ids, err
	}
	return p, build, nil
}

// cairnPeer is Cairn's index as a search uses it: the block loaded from the stored codes,
// int8 candidates, float32 rescoring read from SQLite. pos maps chunk ids to positions.
func cairnPeer(ctx context.Context, st *SQLStore, kbID string, pos map[int64]int64, dims int) (*vecPeer, *vecIndex, time.Duration, error) {
	t0 := time.Now()
	x := &vecIndex{}
	x.reserve(len(pos), dims)
	if err := st.Codes(ctx, kbID, x.addCode); err != nil {
		return nil, nil, 0, err
	}
	build := time.Since(t0)
	p := &vecPeer{name: "Cairn (int8 scan + float32 rescoring from SQLite)", memory: mib(x.memory())}
	p.query = func(q []float32) ([]int64, error) {
		got, err := x.topK(ctx, q, 10, st.VectorsOf)
		out := make([]int64, len(got))
		for i, g := range got {
			out[i] = pos[g.id]
		}
		return out, err
	}
	return p, x, build, nil
}

// int8OnlyPeer is the same scan without rescoring, for the recall int8 codes give alone.
func int8OnlyPeer(x *vecIndex, pos map[int64]int64) *vecPeer {
	return &vecPeer{name: "Cairn int8 alone (no rescoring)", memory: "(same block)", query: func(q []float32) ([]int64, error) {
		x.mu.RLock()
		got := x.candidates(q, 10)
		x.mu.RUnlock()
		out := make([]int64, len(got))
		for i, g := range got {
			out[i] = pos[g.id]
		}
		return out, nil
	}}
}

func brutePeer(data vecData) *vecPeer {
	return &vecPeer{name: "pure Go brute force (float32 in memory, 2 cores)", memory: mib(int64(len(data.vecs) * data.dims * 4)),
		query: func(q []float32) ([]int64, error) { return bruteTopK(data.vecs, q, 10), nil }}
}

// compareVectors builds the peers named in KB_BENCH_PEERS (all by default: chromem,
// sqlitevec, brute) next to Cairn's index and prints the table.
func compareVectors(b *testing.B, st *SQLStore, kbID string, pos map[int64]int64, data vecData) vecRow {
	ctx := context.Background()
	want := os.Getenv("KB_BENCH_PEERS")
	if want == "" {
		want = "chromem,sqlitevec,brute"
	}
	cairn, x, build, err := cairnPeer(ctx, st, kbID, pos, data.dims)
	if err != nil {
		b.Fatal(err)
	}
	peers := []*vecPeer{cairn, int8OnlyPeer(x, pos)}
	builds := map[string]time.Duration{cairn.name: build}
	for _, name := range strings.Split(want, ",") {
		var p *vecPeer
		var d time.Duration
		switch strings.TrimSpace(name) {
		case "chromem":
			p, d, err = chromemPeer(ctx, data)
		case "sqlitevec":
			p, d, err = sqliteVecPeer(ctx, b.TempDir(), data)
		case "brute":
			p = brutePeer(data)
		default:
			continue
		}
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		peers, builds[p.name] = append(peers, p), d
	}
	if err := runPeers(data, peers); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\nvectors: %d × %d-d clustered, %d queries, top 10, GOMAXPROCS %d\n", len(data.vecs), data.dims, len(data.queries), runtime.GOMAXPROCS(0))
	fmt.Printf("| system | p50 | p95 | CPU per query p50 / p95 | recall@10 | memory for vectors | load / build |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	var rows []vecRow
	for _, p := range peers {
		r := vecRow{name: p.name, p50: pct(p.times, 50), p95: pct(p.times, 95), cpu50: pct(p.cpu, 50), cpu95: pct(p.cpu, 95), recall: float64(p.hits) / float64(10*len(data.queries)), memory: p.memory}
		if d, ok := builds[p.name]; ok && d > 0 {
			r.build = d.Round(time.Millisecond).String()
		}
		rows = append(rows, r)
		fmt.Printf("| %s | %s | %s | %s / %s | %.3f | %s | %s |\n", r.name, ms(r.p50), ms(r.p95), ms(r.cpu50), ms(r.cpu95), r.recall, r.memory, r.build)
	}
	rows[0].bytes = x.memory()
	for _, r := range rows[2:] {
		fmt.Printf("ratio p95 %s ÷ Cairn: %.1fx\n", r.name, float64(r.p95)/float64(rows[0].p95))
	}
	return rows[0]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
