package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/store"
)

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

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkKB100k measures at 100k chunks (go test -bench KB100k -benchtime 1x): ingest
// of text into chunks + FTS (embedding excluded), keyword query p95 through
// Service.Search, vector top-10 p95 and recall@10 of Cairn's index next to chromem-go,
// sqlite-vec and a pure Go brute force on the same 768-d clustered vectors, and hybrid
// query p95 through Service.Search.
func BenchmarkKB100k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchOnce(b, 100_000, 768, envInt("KB_BENCH_QUERIES", 100))
	}
}

// BenchmarkKB1M is the same at KB_BENCH_N chunks (1,000,000) of KB_BENCH_DIMS (768),
// run by bench/kb.sh, not by make test: it writes about 8 GB to the temporary directory.
func BenchmarkKB1M(b *testing.B) {
	if os.Getenv("KB_BENCH_N") == "" && os.Getenv("KB_BENCH_1M") == "" {
		b.Skip("set KB_BENCH_1M=1 (bench/kb.sh does)")
	}
	for i := 0; i < b.N; i++ {
		benchOnce(b, envInt("KB_BENCH_N", 1_000_000), envInt("KB_BENCH_DIMS", 768), envInt("KB_BENCH_QUERIES", 20))
	}
}

func benchOnce(b *testing.B, n, dims, queries int) {
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
	ingest := benchIngest(b, st, k, r, n)
	kwQueries := []string{"river mountain", "vector query ranking", "知识", "检索结果", "w123", "castle OR garden", "server cache index token"}
	build := benchKeywordIndex(b, svc, k)
	kw, kwCPU := benchKeyword(b, svc, kwQueries)
	svc.ftsOnly = true // the same queries ranked by FTS5's bm25, as before the in-memory index
	kwFTS, kwFTSCPU := benchKeyword(b, svc, kwQueries)
	svc.ftsOnly = false
	fmt.Printf("keyword index: built in %.2f s, %.1f MB (heap %.1f MB); in memory p50 %s p95 %s (CPU p95 %s), FTS5 bm25 p50 %s p95 %s (CPU p95 %s): p95 %.1fx\n",
		build.time.Seconds(), float64(build.bytes)/1e6, float64(build.heap)/1e6, ms(pct(kw, 50)), ms(pct(kw, 95)), ms(pct(kwCPU, 95)),
		ms(pct(kwFTS, 50)), ms(pct(kwFTS, 95)), ms(pct(kwFTSCPU, 95)), float64(pct(kwFTS, 95))/float64(pct(kw, 95)))
	data := clustered(r, n, dims, queries)
	t0 := time.Now()
	pos := storeVectors(b, st, k, data)
	storeTime := time.Since(t0)
	vec := compareVectors(b, st, k.ID, pos, data)
	hybrid, hybridCPU := benchHybrid(b, svc, st, k, data, fake, kwQueries)
	zipf, zipfHybrid, zipfHybridCPU, zipfBuild := benchZipf(b, n, data)
	fmt.Printf("long-tailed corpus (%d chunks): keyword p50 %s p95 %s, hybrid p50 %s p95 %s (CPU p95 %s); keyword index built in %.2f s, %.1f MB (heap %.1f MB)\n", n,
		ms(pct(zipf, 50)), ms(pct(zipf, 95)), ms(pct(zipfHybrid, 50)), ms(pct(zipfHybrid, 95)), ms(pct(zipfHybridCPU, 95)),
		zipfBuild.time.Seconds(), float64(zipfBuild.bytes)/1e6, float64(zipfBuild.heap)/1e6)
	fmt.Printf("hybrid CPU per query p50 %s p95 %s\n", ms(pct(hybridCPU, 50)), ms(pct(hybridCPU, 95)))
	fmt.Printf("keyword CPU per query p50 %s p95 %s (one core: SQLite runs a query on one)\n", ms(pct(kwCPU, 50)), ms(pct(kwCPU, 95)))
	fmt.Printf("\n%d chunks: ingest %.1f s, keyword p50 %s p95 %s, vector p50 %s p95 %s (recall@10 %.3f), hybrid p50 %s p95 %s; vectors + codes stored in %.1f s\n",
		n, ingest.Seconds(), ms(pct(kw, 50)), ms(pct(kw, 95)), ms(vec.p50), ms(vec.p95), vec.recall, ms(pct(hybrid, 50)), ms(pct(hybrid, 95)), storeTime.Seconds())
	b.ReportMetric(ingest.Seconds(), "ingest-s")
	b.ReportMetric(float64(pct(kw, 95).Microseconds())/1000, "keyword-p95-ms")
	b.ReportMetric(float64(pct(kwCPU, 95).Microseconds())/1000, "keyword-cpu-p95-ms")
	b.ReportMetric(float64(pct(kwFTS, 95).Microseconds())/1000, "keyword-fts5-p95-ms")
	b.ReportMetric(float64(build.heap)/1e6, "kwindex-MB")
	b.ReportMetric(float64(zipfBuild.heap)/1e6, "kwindex-zipf-MB")
	b.ReportMetric(build.time.Seconds(), "kwindex-build-s")
	b.ReportMetric(float64(vec.cpu95.Microseconds())/1000, "vector-cpu-p95-ms")
	b.ReportMetric(float64(vec.p95.Microseconds())/1000, "vector-p95-ms")
	b.ReportMetric(vec.recall, "recall@10")
	b.ReportMetric(float64(vec.bytes)/1e6, "vector-MB")
	b.ReportMetric(float64(pct(hybrid, 95).Microseconds())/1000, "hybrid-p95-ms")
	b.ReportMetric(float64(pct(zipf, 95).Microseconds())/1000, "keyword-zipf-p95-ms")
	b.ReportMetric(float64(pct(zipfHybrid, 95).Microseconds())/1000, "hybrid-zipf-p95-ms")
	b.ReportMetric(float64(pct(hybridCPU, 95).Microseconds())/1000, "hybrid-cpu-p95-ms")
	b.ReportMetric(float64(pct(zipfHybridCPU, 95).Microseconds())/1000, "hybrid-zipf-cpu-p95-ms")
}

// benchKeyword times Service.Search over the queries, top 10.
func benchKeyword(b *testing.B, svc *Service, queries []string) (wall, cpu []time.Duration) {
	for i := 0; i < envInt("KB_BENCH_KW", 200); i++ {
		t0, c0 := time.Now(), cpuNow()
		if _, err := svc.Search(context.Background(), SearchRequest{Query: queries[i%len(queries)], TopK: 10}); err != nil {
			b.Fatal(err)
		}
		wall, cpu = append(wall, time.Since(t0)), append(cpu, cpuNow()-c0)
	}
	return wall, cpu
}

type kwBuild struct {
	time        time.Duration
	bytes, heap int64 // the index's own count, and the heap it added (after a GC)
}

// benchKeywordIndex builds a KB's keyword index as its first search does and measures
// the time and memory it takes.
func benchKeywordIndex(b *testing.B, svc *Service, k KB) kwBuild {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	svc.keywordIndexes(context.Background(), []KB{k})
	svc.mu.Lock()
	x := svc.kw[k.ID]
	svc.mu.Unlock()
	<-x.built
	if !x.ready.Load() {
		b.Fatal("keyword index build failed")
	}
	d := time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	x.mu.RLock()
	defer x.mu.RUnlock()
	return kwBuild{time: d, bytes: x.memory(), heap: int64(m1.HeapAlloc) - int64(m0.HeapAlloc)}
}

// benchIngest writes n chunks of about 60 words through ReplaceChunks, 500 per file.
func benchIngest(b *testing.B, st *SQLStore, k KB, r *rand.Rand, n int) time.Duration {
	ctx := context.Background()
	const perFile = 500
	start := time.Now()
	for fi := 0; fi < n/perFile; fi++ {
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
	return time.Since(start)
}

// storeVectors gives the chunks the set's vectors (file by file, as ingest does; codes
// are written with them) and returns each chunk id's position in the set.
func storeVectors(b *testing.B, st *SQLStore, k KB, data vecData) map[int64]int64 {
	ctx := context.Background()
	files, err := st.Files(ctx, k.ID)
	if err != nil {
		b.Fatal(err)
	}
	pos := make(map[int64]int64, len(data.vecs))
	for _, f := range files {
		cs, err := st.Unembedded(ctx, f.ID, 1000)
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]int64, len(cs))
		vs := make([][]float32, len(cs))
		for i, c := range cs {
			p := len(pos)
			ids[i], vs[i] = c.ID, data.vecs[p]
			pos[c.ID] = int64(p)
		}
		if err := st.SetVectors(ctx, f.ID, ids, vs); err != nil {
			b.Fatal(err)
		}
	}
	return pos
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

// benchHybrid turns the KB into one with an embedding model and times Service.Search
// with both retrievers (the first search, which loads the block from SQLite, not
// counted).
func benchHybrid(b *testing.B, svc *Service, st *SQLStore, k KB, data vecData, fake *fixedEmbedder, queries []string) (wall, cpu []time.Duration) {
	ctx := context.Background()
	k.EmbedProvider, k.EmbedModel, k.Dims = "local", "fake", data.dims
	if err := st.UpdateKB(ctx, k); err != nil {
		b.Fatal(err)
	}
	fake.v = data.queries[0]
	if _, err := svc.Search(ctx, SearchRequest{Query: "warm", KBs: []string{k.ID}}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < envInt("KB_BENCH_HYBRID", 100); i++ {
		fake.v = data.queries[i%len(data.queries)]
		t0, c0 := time.Now(), cpuNow()
		hits, err := svc.Search(ctx, SearchRequest{Query: queries[i%len(queries)], TopK: 10, KBs: []string{k.ID}})
		if err != nil || len(hits) == 0 {
			b.Fatalf("hybrid search: %v, %d hits", err, len(hits))
		}
		wall, cpu = append(wall, time.Since(t0)), append(cpu, cpuNow()-c0)
	}
	return wall, cpu
}

// zipfCorpus is text with a long-tailed vocabulary as real prose has (rank-frequency
// Zipf, s = 1.1, 30,000 words; Han characters drawn the same way from 3,000), where the
// main corpus draws every word from 66 and so has each query word in most chunks.
type zipfCorpus struct {
	r     *rand.Rand
	words *rand.Zipf
	han   *rand.Zipf
}

func newZipfCorpus(r *rand.Rand) *zipfCorpus {
	return &zipfCorpus{r: r, words: rand.NewZipf(r, 1.1, 1, 29_999), han: rand.NewZipf(r, 1.1, 1, 2_999)}
}

func zipfWord(rank uint64) string { return "z" + strconv.FormatUint(rank, 36) }

func zipfHan(rank uint64) string { return string(rune(0x4E00 + int(rank))) }

func (z *zipfCorpus) text() string {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		b.WriteString(zipfWord(z.words.Uint64()))
		b.WriteByte(' ')
		if i%15 == 0 {
			for j := 0; j < 6; j++ {
				b.WriteString(zipfHan(z.han.Uint64()))
			}
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// benchZipf times keyword queries on the long-tailed corpus: two or three words of rank
// 50 to 2,000 (content words; the most common ones are what stopwords remove) or a
// two-character Han word of ranks 20 to 500; then hybrid queries of the same kind with
// the vector set stored on its chunks.
func benchZipf(b *testing.B, n int, data vecData) (kw, hybrid, hybridCPU []time.Duration, build kwBuild) {
	ctx := context.Background()
	db, err := store.OpenPath(ctx, filepath.Join(b.TempDir(), "zipf.db"))
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
	k, err := svc.Create(ctx, CreateInput{Name: "zipf"})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	z := newZipfCorpus(r)
	for fi := 0; fi < n/500; fi++ {
		f := File{ID: newID(), KBID: k.ID, Name: fmt.Sprintf("z%d.txt", fi), SHA256: fmt.Sprintf("%064d", fi), State: StateDone, CreatedAt: now(), UpdatedAt: now()}
		if _, _, err := st.AddFile(ctx, f); err != nil {
			b.Fatal(err)
		}
		chunks := make([]Chunk, 500)
		for i := range chunks {
			chunks[i] = Chunk{Index: i, Text: z.text()}
		}
		if _, err := st.ReplaceChunks(ctx, f, chunks); err != nil {
			b.Fatal(err)
		}
	}
	build = benchKeywordIndex(b, svc, k)
	var queries []string
	for i := 0; i < envInt("KB_BENCH_KW", 200); i++ {
		var q string
		switch i % 3 {
		case 0:
			q = zipfWord(uint64(50+r.IntN(1950))) + " " + zipfWord(uint64(50+r.IntN(1950)))
		case 1:
			q = zipfWord(uint64(50+r.IntN(1950))) + " " + zipfWord(uint64(50+r.IntN(1950))) + " " + zipfWord(uint64(50+r.IntN(1950)))
		default:
			q = zipfHan(uint64(20+r.IntN(480))) + zipfHan(uint64(20+r.IntN(480)))
		}
		queries = append(queries, q)
		t0 := time.Now()
		if _, err := svc.Search(ctx, SearchRequest{Query: q, TopK: 10}); err != nil {
			b.Fatal(err)
		}
		kw = append(kw, time.Since(t0))
	}
	storeVectors(b, st, k, data)
	hybrid, hybridCPU = benchHybrid(b, svc, st, k, data, fake, queries)
	return kw, hybrid, hybridCPU, build
}
