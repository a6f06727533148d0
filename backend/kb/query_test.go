package kb

import (
	"context"
	"slices"
	"testing"
)

// TestKeywordTable runs queries with punctuation, diacritics, FTS5 syntax and CJK
// (Chinese, Japanese, Korean, mixed with Latin) against real FTS5 through Service.Search.
func TestKeywordTable(t *testing.T) {
	f := newFixture(t, nil)
	k := f.create("table", "")
	ctx := context.Background()
	docs := map[string]string{
		"punct.md": "E-mail the C++ team about state-of-the-art parsers. Don't forget: café, naïve résumé. " +
			"Price $3.50 (approx.), path /usr/local/bin, version v1.2.3.",
		"zh.md":    "我们使用向量数据库存储嵌入。知识库支持中文分词，检索结果按相关性排序。",
		"ja.md":    "東京の電波塔です。ひらがなとカタカナを書きます。",
		"ko.md":    "한국어 검색 엔진은 형태소 분석을 사용합니다.",
		"mixed.md": "Go语言的并发模型基于goroutine和channel。",
	}
	for name, text := range docs {
		if _, err := f.svc.AddText(ctx, k.Name, name, text); err != nil {
			t.Fatal(err)
		}
	}
	f.idle()
	cases := []struct{ query, want string }{ // want "" is no hit at all
		{"e-mail", "punct.md"},
		{"mail", "punct.md"},
		{"C++", "punct.md"},
		{"don't", "punct.md"},
		{"cafe", "punct.md"},   // diacritics removed on both sides
		{"NAÏVE", "punct.md"},  // case and diacritics
		{"resume", "punct.md"}, // résumé
		{"3.50", "punct.md"},
		{"/usr/local", "punct.md"},
		{"state of the art", "punct.md"}, // stopwords dropped, the rest ANDed
		{"v1.2.3", "punct.md"},
		{`"unbalanced`, ""},
		{"NEAR(", ""},
		{"*", ""},
		{"AND OR NOT", ""},
		{"数据库", "zh.md"},
		{"中文", "zh.md"}, // a two-character word
		{"排序", "zh.md"},
		{"据库存", "zh.md"}, // bigrams across a word boundary, in order
		{"库数据", ""},      // the same characters out of order are not there
		{"知识库，检索", "zh.md"},
		{"東京", "ja.md"},
		{"カタカナ", "ja.md"},
		{"ひらがな", "ja.md"},
		{"검색", "ko.md"},
		{"형태소 분석", "ko.md"},
		{"Go语言", "mixed.md"},
		{"goroutine", "mixed.md"},
		{"并发模型", "mixed.md"},
		{"channel 并发", "mixed.md"},
	}
	for _, c := range cases {
		hits := f.search(k.Name, c.query)
		switch {
		case c.want == "" && len(hits) > 0:
			t.Errorf("%q: want no hit, got %v", c.query, files(hits))
		case c.want != "" && (len(hits) == 0 || hits[0].File != c.want):
			t.Errorf("%q: got %v, want %s first", c.query, files(hits), c.want)
		}
	}
}

func TestWords(t *testing.T) {
	cases := map[string]string{
		"plain text":         "plain text",
		"Go语言的goroutine":     "Go   goroutine",
		"使用Python编写, 한국어 OK": "  Python  ,     OK",
	}
	for in, want := range cases {
		if got := Words(in); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKeywordScope searches one of two KBs (FTS5 joined with the chunks' KB), then both
// (no join): each finds exactly its own chunks.
func TestKeywordScope(t *testing.T) {
	f := newFixture(t, nil)
	a, b := f.create("a", ""), f.create("b", "")
	ctx := context.Background()
	if _, err := f.svc.AddText(ctx, a.ID, "a.md", "shared words and apples 苹果"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddText(ctx, b.ID, "b.md", "shared words and bananas 香蕉"); err != nil {
		t.Fatal(err)
	}
	f.idle()
	cases := []struct {
		kbs   []string
		query string
		want  []string
	}{
		{[]string{a.ID}, "shared words", []string{"a.md"}},
		{[]string{b.Name}, "shared words", []string{"b.md"}},
		{[]string{a.ID}, "bananas", nil},
		{[]string{a.ID, b.ID}, "shared", []string{"a.md", "b.md"}},
		{nil, "shared", []string{"a.md", "b.md"}},
		{nil, "香蕉", []string{"b.md"}},
	}
	for _, c := range cases {
		hits, err := f.svc.Search(ctx, SearchRequest{Query: c.query, KBs: c.kbs})
		if err != nil {
			t.Fatal(err)
		}
		got := files(hits)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%v %q: got %v, want %v", c.kbs, c.query, got, c.want)
		}
	}
}
