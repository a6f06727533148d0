package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/store"
)

// benchChunks is the size of the benchmark corpus (go test -bench KB -benchtime 1x).
const benchChunks = 100_000

var benchWords = strings.Fields(`alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river mountain
	forest ocean desert valley harbor bridge tower castle garden market school library museum station engine
	circuit signal network server client cache index vector query search ranking token parser chunk embed`)

var benchHan = []rune("知识库向量数据索引检索文件模型嵌入中文分词搜索结果排序用户系统服务网络")

func benchText(r *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		b.WriteString(benchWords[r.IntN(len(benchWords))])
		b.WriteByte(' ')
		if i%15 == 0 {
			for j := 0; j < 6; j++ {
				b.WriteRune(benchHan[r.IntN(len(benchHan))])
			}
			b.WriteByte(' ')
		}
	}
	fmt.Fprintf(&b, "w%d", r.IntN(50000))
	return b.String()
}

func p95(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)*95/100]
}

// BenchmarkKB100k measures, at 100k chunks: ingest of text into chunks + FTS (embedding
// excluded), keyword query p95 (through Service.Search), and exact vector top-10 p95 over
// 768-d clustered vectors with recall against a brute-force scan.
func BenchmarkKB100k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchOnce(b)
	}
}

func benchOnce(b *testing.B) {
	ctx := context.Background()
	db, err := store.OpenPath(ctx, filepath.Join(b.TempDir(), "cairn.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st := NewSQLStore(db.DB)
	fake := &fixedEmbedder{}
	svc, err := New(ctx, Config{DataDir: b.TempDir(), Store: st,
		Embedders: func(context.Context, string, string) (Embedder, error) { return fake, nil }})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	k, err := svc.Create(ctx, CreateInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 9))
	const perFile = 500
	start := time.Now()
	for fi := 0; fi < benchChunks/perFile; fi++ {
		f := File{ID: newID(), KBID: k.ID, Name: fmt.Sprintf("f%d.txt", fi), SHA256: fmt.Sprintf("%064d", fi), State: StateDone, CreatedAt: now(), UpdatedAt: now()}
		if _, _, err := st.AddFile(ctx, f); err != nil {
			b.Fatal(err)
		}
		chunks := make([]Chunk, perFile)
		for i := range chunks {
			chunks[i] = Chunk{Index: i, Text: benchText(r), LineStart: i + 1, LineEnd: i + 1}
		}
		if _, err := st.ReplaceChunks(ctx, f, chunks); err != nil {
			b.Fatal(err)
		}
	}
	ingest := time.Since(start)
	queries := []string{"river mountain", "vector query ranking", "知识", "检索结果", "w123", "castle OR garden", "server cache index token"}
	var kw []time.Duration
	for i := 0; i < 200; i++ {
		t0 := time.Now()
		if _, err := svc.Search(ctx, SearchRequest{Query: queries[i%len(queries)], TopK: 10}); err != nil {
			b.Fatal(err)
		}
		kw = append(kw, time.Since(t0))
	}
	vecP95, recall, vecs := benchVectors(r)
	hybrid := benchHybrid(b, svc, st, k, vecs, fake, queries)
	b.ReportMetric(ingest.Seconds(), "ingest-s")
	b.ReportMetric(float64(hybrid.Microseconds())/1000, "hybrid-p95-ms")
	b.ReportMetric(float64(p95(kw).Microseconds())/1000, "keyword-p95-ms")
	b.ReportMetric(float64(vecP95.Microseconds())/1000, "vector-p95-ms")
	b.ReportMetric(recall, "recall@10")
}

// benchVectors builds 100k clustered 768-d vectors and times exact top-10 queries.
func benchVectors(r *rand.Rand) (time.Duration, float64, [][]float32) {
	const d, clusters = 768, 100
	centers := make([][]float32, clusters)
	for c := range centers {
		centers[c] = make([]float32, d)
		for j := range centers[c] {
			centers[c][j] = float32(r.NormFloat64())
		}
	}
	x := &vecIndex{}
	vecs := make([][]float32, benchChunks)
	for i := range vecs {
		c := centers[r.IntN(clusters)]
		v := make([]float32, d)
		for j := range v {
			v[j] = c[j] + 0.5*float32(r.NormFloat64())
		}
		vecs[i] = v
		x.add(int64(i), v)
	}
	var times []time.Duration
	hits, total := 0, 0
	for qi := 0; qi < 100; qi++ {
		q := vecs[r.IntN(len(vecs))]
		t0 := time.Now()
		got := x.topK(q, 10)
		times = append(times, time.Since(t0))
		if qi < 10 { // recall against a plain scan
			nq := normalize(q)
			type p struct {
				id int64
				s  float32
			}
			all := make([]p, len(vecs))
			for i := range vecs {
				all[i] = p{int64(i), dot(nq, x.data[i*d:(i+1)*d])}
			}
			sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
			want := map[int64]bool{}
			for _, w := range all[:10] {
				want[w.id] = true
			}
			for _, g := range got {
				if want[g.id] {
					hits++
				}
			}
			total += 10
		}
	}
	return p95(times), float64(hits) / float64(total), vecs
}

// fixedEmbedder answers every query with the vector it was last given.
type fixedEmbedder struct{ v []float32 }

func (e *fixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = e.v
	}
	return out, nil
}

// benchHybrid stores the vectors with the chunks (file by file, as ingest does), turns the
// KB into one with an embedding model, and times Service.Search with both retrievers (the
// first search, which loads the block from SQLite, not counted).
func benchHybrid(b *testing.B, svc *Service, st *SQLStore, k KB, vecs [][]float32, fake *fixedEmbedder, queries []string) time.Duration {
	ctx := context.Background()
	files, err := st.Files(ctx, k.ID)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, f := range files {
		cs, err := st.Unembedded(ctx, f.ID, 1000)
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]int64, len(cs))
		vs := make([][]float32, len(cs))
		for i, c := range cs {
			ids[i], vs[i] = c.ID, vecs[n%len(vecs)]
			n++
		}
		if err := st.SetVectors(ctx, f.ID, ids, vs); err != nil {
			b.Fatal(err)
		}
	}
	k.EmbedProvider, k.EmbedModel, k.Dims = "local", "fake", len(vecs[0])
	if err := st.UpdateKB(ctx, k); err != nil {
		b.Fatal(err)
	}
	fake.v = vecs[0]
	if _, err := svc.Search(ctx, SearchRequest{Query: "warm", KBs: []string{k.ID}}); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for i := 0; i < 100; i++ {
		fake.v = vecs[(i*7919)%len(vecs)]
		t0 := time.Now()
		hits, err := svc.Search(ctx, SearchRequest{Query: queries[i%len(queries)], TopK: 10, KBs: []string{k.ID}})
		if err != nil || len(hits) == 0 {
			b.Fatalf("hybrid search: %v, %d hits", err, len(hits))
		}
		times = append(times, time.Since(t0))
	}
	return p95(times)
}
