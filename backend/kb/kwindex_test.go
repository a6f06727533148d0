package kb

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// tokenSamples are texts in the scripts and forms the in-memory tokenizer has to split as
// unicode61 does.
var tokenSamples = []string{
	"Café naïve résumé Ærøskøbing straße İstanbul ǅemal Ωmega Йод ﬁne Łódź Ångström",
	"e\u0301cole co2 x_y a-b it's 3.14 ①② ＡＢＣ１２ Việt Nam Nguyễn ǘ ḑ",
	"ไทย हिन्दी עִבְרִית العَرَبِيَّة 𝔘𝔫𝔦 𐐀𐐁 Ελληνικά άέή",
	"emoji 😀 dash—dash ٣٤ ⅷ \u0301lead \ue000private",
	"我们使用向量数据库存储嵌入。知识库支持中文分词，检索结果按相关性排序。",
	"東京の電波塔です。ひらがなとカタカナを書きます。ー々〇",
	"한국어 검색 엔진은 형태소 분석을 사용합니다.",
	"Go语言的并发模型基于goroutine和channel。⺀⼀ 㐀 𠀀𠀁",
	"# Heading › sub\nbody text",
}

type fts5Token struct {
	col string
	tok string
}

// TestTokensMatchFTS5 splits the samples as kb_fts stores them (Words, Bigrams) with the
// in-memory tokenizer and with FTS5 itself (read back through fts5vocab): the same
// tokens in the same order, Chinese, Japanese and Korean bigrams included.
func TestTokensMatchFTS5(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	db, err := f.db.DB.Conn(ctx) // the temp vocabulary table lives on one connection
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, s := range tokenSamples {
		if _, err := db.ExecContext(ctx, "INSERT INTO kb_fts(rowid, text, cjk) VALUES (?,?,?)", 1_000_000+i, Words(s), Bigrams(s)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.kb_vocab USING fts5vocab(main, kb_fts, instance)"); err != nil {
		t.Fatal(err)
	}
	tok := tokenizer{base: newLatinBase()}
	for i, s := range tokenSamples {
		rows, err := db.QueryContext(ctx, "SELECT col, term FROM temp.kb_vocab WHERE doc=? ORDER BY col DESC, offset", 1_000_000+i)
		if err != nil {
			t.Fatal(err)
		}
		var want []fts5Token
		for rows.Next() {
			var c fts5Token
			if err := rows.Scan(&c.col, &c.tok); err != nil {
				t.Fatal(err)
			}
			want = append(want, c)
		}
		rows.Close()
		var got []fts5Token
		tok.each(Words(s), func(b []byte) { got = append(got, fts5Token{"text", string(b)}) })
		tok.each(Bigrams(s), func(b []byte) { got = append(got, fts5Token{"cjk", string(b)}) })
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", s, got, want)
		}
	}
}

// rankCorpus writes n chunks over files of two KBs: English words of uneven frequency,
// accented words, Chinese words and runs, Japanese, so that idf and lengths vary.
func rankCorpus(t *testing.T, f *fixture, kbs []KB, n int, r *rand.Rand) []File {
	t.Helper()
	words := strings.Fields("river mountain forest ocean valley harbor bridge tower castle garden market school library " +
		"café naïve résumé Ångström vector query ranking token parser w1 w2 w3 x9")
	han := []string{"知识", "向量", "数据库", "检索", "结果", "排序", "中文", "分词", "模型", "嵌入", "东京", "カタカナ", "검색"}
	st := NewSQLStore(f.db.DB)
	var files []File
	for i := 0; i < n; {
		k := kbs[len(files)%len(kbs)]
		fl := File{ID: newID(), KBID: k.ID, Name: fmt.Sprintf("f%d.md", len(files)), SHA256: strings.Repeat(newID(), 4), State: StateDone}
		if _, _, err := f.svc.st.AddFile(context.Background(), fl); err != nil {
			t.Fatal(err)
		}
		var cs []Chunk
		for j := 0; j < 10 && i < n; j, i = j+1, i+1 {
			var b strings.Builder
			for w := 0; w < 5+r.IntN(40); w++ {
				if r.IntN(4) == 0 {
					b.WriteString(han[int(math.Sqrt(float64(r.IntN(len(han)*len(han)))))])
				} else {
					b.WriteString(words[r.IntN(1+r.IntN(len(words)))])
				}
				b.WriteByte(' ')
			}
			cs = append(cs, Chunk{Index: j, Text: b.String(), Heading: []string{"", "Notes › 数据"}[r.IntN(2)]})
		}
		old, err := st.ReplaceChunks(context.Background(), fl, cs)
		if err != nil {
			t.Fatal(err)
		}
		f.svc.indexChunks(k.ID, old, cs)
		files = append(files, fl)
	}
	return files
}

var rankQueries = []string{"river", "river mountain", "café", "CAFE naive", "Ångström token", "w1 w2 w3", "x9 river",
	"知识", "数据库", "向量 检索", "检", "库", "东京", "カタカナ", "검색", "库 river", "数据库 结果 ranking", "elephant", "elephant river"}

// ftsScores are FTS5's bm25 (negated: higher is better) of every chunk an expression matches.
func ftsScores(t *testing.T, f *fixture, expr string) map[int64]float64 {
	t.Helper()
	rows, err := f.db.DB.Query("SELECT rowid, bm25(kb_fts) FROM kb_fts WHERE kb_fts MATCH ?", expr)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]float64{}
	for rows.Next() {
		var id int64
		var s float64
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		out[id] = -s
	}
	return out
}

// memScores are the in-memory index's scores of every chunk a query matches (and: all
// its terms, else any) over the given KBs.
func memScores(t *testing.T, f *fixture, kbs []KB, q string, and bool) map[int64]float64 {
	t.Helper()
	idx := builtIndexes(t, f.svc, kbs)
	top, err := f.svc.rankScored(context.Background(), idx, f.svc.kwTerms(q), and, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]float64{}
	for _, c := range top {
		out[c.id] = c.score
	}
	return out
}

// builtIndexes are the KBs' keyword indexes once built (a search waits only kwWait).
func builtIndexes(t *testing.T, s *Service, kbs []KB) []*kwIndex {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if idx := s.keywordIndexes(context.Background(), kbs); idx != nil {
			return idx
		}
	}
	t.Fatal("keyword index not built in a minute")
	return nil
}

func sameScores(got, want map[int64]float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d chunks, FTS5 %d", len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok || math.Abs(g-w) > 1e-9*max(1, math.Abs(w)) {
			return fmt.Sprintf("chunk %d: %v, FTS5 %v", id, g, w)
		}
	}
	return ""
}

// TestMemoryRankingMatchesFTS5 scores every query of English, accented, Chinese (one,
// two and three characters), Japanese and Korean terms in Go and with FTS5's bm25 over
// all KBs: the same chunks with the same scores, for the AND and the OR expression.
func TestMemoryRankingMatchesFTS5(t *testing.T) {
	f := newFixture(t, nil)
	kbs := []KB{f.create("one", ""), f.create("two", "")}
	rankCorpus(t, f, kbs, 400, rand.New(rand.NewPCG(1, 2)))
	for _, q := range rankQueries {
		exprs := MatchExprs(q)
		for i, expr := range exprs {
			and := i == 0
			if msg := sameScores(memScores(t, f, kbs, q, and), ftsScores(t, f, expr)); msg != "" {
				t.Errorf("%q (%s): %s", q, expr, msg)
			}
		}
	}
}

// TestMemoryIndexAgreesWithRebuild adds, re-indexes and removes files after the index is
// built, then checks it against one built afresh from the store: the same live chunks,
// lengths and scores for every query, and still the same as FTS5.
func TestMemoryIndexAgreesWithRebuild(t *testing.T) {
	f := newFixture(t, nil)
	kbs := []KB{f.create("one", ""), f.create("two", "")}
	r := rand.New(rand.NewPCG(3, 4))
	files := rankCorpus(t, f, kbs, 200, r)
	builtIndexes(t, f.svc, kbs)
	files = append(files, rankCorpus(t, f, kbs, 150, r)...)
	ctx := context.Background()
	for i, fl := range files {
		switch i % 5 {
		case 1: // removed
			if err := f.svc.RemoveFile(ctx, fl.ID); err != nil {
				t.Fatal(err)
			}
		case 3: // re-indexed with other text
			cs := []Chunk{{Index: 0, Text: "river 数据库 replaced"}, {Index: 1, Text: "mountain 检索结果"}}
			old, err := f.svc.st.ReplaceChunks(ctx, fl, cs)
			if err != nil {
				t.Fatal(err)
			}
			f.svc.indexChunks(fl.KBID, old, cs)
		}
	}
	if _, err := f.svc.AddText(ctx, kbs[0].ID, "late.md", "river harbor 知识库 late"); err != nil {
		t.Fatal(err)
	}
	f.idle()
	for _, k := range kbs {
		live := builtIndexes(t, f.svc, []KB{k})[0]
		fresh := newKwIndex(f.svc.seed, f.svc.latin)
		if err := f.svc.st.ChunkTexts(ctx, k.ID, fresh.add); err != nil {
			t.Fatal(err)
		}
		live.mu.Lock()
		live.compact()
		ids, lens, total := slices.Clone(live.ids), slices.Clone(live.lens), live.total
		live.mu.Unlock()
		if !slices.Equal(ids, fresh.ids) || !slices.Equal(lens, fresh.lens) || total != fresh.total {
			t.Fatalf("%s: live index has %d chunks (%d tokens), a rebuild %d (%d)", k.Name, len(ids), total, len(fresh.ids), fresh.total)
		}
		for _, q := range rankQueries {
			for _, and := range []bool{true, false} {
				ts := f.svc.kwTerms(q)
				a, err := f.svc.rankScored(ctx, []*kwIndex{live}, ts, and, 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				b, err := f.svc.rankScored(ctx, []*kwIndex{fresh}, ts, and, 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a, b) {
					t.Errorf("%s %q and=%v: live %v, rebuilt %v", k.Name, q, and, a, b)
				}
			}
		}
	}
	for _, q := range rankQueries {
		if msg := sameScores(memScores(t, f, kbs, q, false), ftsScores(t, f, MatchExprs(q)[len(MatchExprs(q))-1])); msg != "" {
			t.Errorf("%q after changes: %s", q, msg)
		}
	}
}

// TestKeywordPathsAgree runs the Service's keyword searches of the table tests through
// FTS5 and through the in-memory index: the same files first.
func TestKeywordPathsAgree(t *testing.T) {
	f := newFixture(t, nil)
	k := f.create("both", "")
	ctx := context.Background()
	for name, text := range map[string]string{"garden.md": english, "数据库.md": chinese, "mixed.md": "Go语言的并发模型基于goroutine和channel。"} {
		if _, err := f.svc.AddText(ctx, k.Name, name, text); err != nil {
			t.Fatal(err)
		}
	}
	f.idle()
	builtIndexes(t, f.svc, []KB{k})
	for _, q := range []string{"aphids", "Tomatoes SUN", "索引", "向量数据库", "知识库 检索", "库", "goroutine 并发", "aphids 向量"} {
		mem := files(f.search(k.Name, q))
		f.svc.ftsOnly = true
		fts := files(f.search(k.Name, q))
		f.svc.ftsOnly = false
		if len(mem) == 0 || !slices.Equal(mem, fts) {
			t.Errorf("%q: in memory %v, FTS5 %v", q, mem, fts)
		}
	}
}

// TestKwIndexCompacts removes most chunks of an index and adds one with an id below a
// removed one's (SQLite reuses the largest ids): postings and terms of the removed ones
// are gone and the docs stay in id order.
func TestKwIndexCompacts(t *testing.T) {
	x := newKwIndex(maphash.MakeSeed(), newLatinBase())
	for id := int64(1); id <= 8; id++ {
		x.add(id, "", fmt.Sprintf("common unique%d 知识%d", id, id))
	}
	x.add(3, "", "added twice is kept once")
	terms := len(x.dict)
	x.remove([]int64{6, 7, 8})
	if x.ndead != 0 || len(x.ids) != 5 || len(x.dict) >= terms {
		t.Fatalf("after removing 3 of 8: %d docs, %d removed, %d terms (before %d)", len(x.ids), x.ndead, len(x.dict), terms)
	}
	x.remove([]int64{5})
	x.add(5, "", "reused id")
	if !slices.Equal(x.ids, []int64{1, 2, 3, 4, 5}) || x.live() != 5 {
		t.Fatalf("ids %v, live %d", x.ids, x.live())
	}
	h := maphash.String(x.seed, "common")
	if got := x.postings(h); len(got) != 4 {
		t.Errorf("common in %v, want the 4 docs left", got)
	}
	if got := x.prefix('知'); len(got) != 4 {
		t.Errorf("知 in %v, want 4 docs", got)
	}
}
