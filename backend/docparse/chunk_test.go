package docparse

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

func TestTokensCountsCJKPerCharacter(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"knowledge", 2},
		{"知识库", 3},                 // one per character
		{"知识库 search.", 3 + 1 + 1}, // CJK, a word, a full stop
		{"，。", 2},
		{"a1b2", 1},
	}
	for _, c := range cases {
		if got := Tokens(c.s); got != c.want {
			t.Errorf("Tokens(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestTokensNearO200k keeps the estimate honest against a real tokenizer: never under by
// more than 15% (a chunk would overflow an embedding model's window), never over by more
// than 40% (chunks would be needlessly small).
func TestTokensNearO200k(t *testing.T) {
	c := codec.NewO200kBase()
	for _, s := range []string{
		"Cairn is a desktop chat application. It reads documents of many kinds and finds them by word and by meaning. Knowledge bases keep their chunks in SQLite, with full-text search and vectors.",
		"知识库把文档切成小块，按关键词和语义检索。嵌入模型可以随时更换，而无需重建索引。中文的两个字的词也能被找到。",
		"func (c *chunker) add(s segment) { heading := s.b.Kind == KindHeading; if c.cur == nil { c.start(s) } }",
		"Die Wissensdatenbank zerlegt Dokumente in Abschnitte und durchsucht sie nach Wörtern und Bedeutung.",
		"混合检索：keyword 与 vector 的排名用 RRF 融合，然后可选地 rerank。",
	} {
		real, err := c.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		est := Tokens(s)
		if r := float64(est) / float64(real); r < 0.85 || r > 1.4 {
			t.Errorf("estimate %d vs o200k %d (%.2f) for %q", est, real, r, s)
		}
	}
}

func TestChunksSplitOnHeadingsAndCarryPositions(t *testing.T) {
	md := "# A\n\npara one.\n\npara two.\n\n# B\n\n## B1\n\nunder b1.\n"
	doc := mustParse(t, "n.md", []byte(md))
	cs := Chunks(doc, 100, 10)
	if len(cs) != 2 {
		t.Fatalf("%d chunks: %+v", len(cs), cs)
	}
	if cs[0].Text != "A\n\npara one.\n\npara two." || cs[0].LineStart != 1 || cs[0].LineEnd != 5 || strings.Join(cs[0].HeadingPath, ">") != "A" {
		t.Fatalf("chunk 0 %+v", cs[0])
	}
	// consecutive headings stay with the text they introduce
	if cs[1].Text != "B\n\nB1\n\nunder b1." || strings.Join(cs[1].HeadingPath, ">") != "B" || cs[1].LineStart != 7 || cs[1].LineEnd != 11 {
		t.Fatalf("chunk 1 %+v", cs[1])
	}
}

func TestChunksRespectSizeAndOverlapInChinese(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 40; i++ {
		sb.WriteString("这是一个用于测试分块的中文句子。")
	}
	doc := &Document{Blocks: []Block{{Kind: KindParagraph, Text: sb.String(), Page: 3}}}
	cs := Chunks(doc, 100, 20)
	if len(cs) < 6 {
		t.Fatalf("only %d chunks", len(cs))
	}
	for i, c := range cs {
		if c.Tokens > 100 || Tokens(c.Text) > 100 {
			t.Fatalf("chunk %d has %d tokens (%d counted): %q", i, c.Tokens, Tokens(c.Text), c.Text)
		}
		if c.PageStart != 3 || c.PageEnd != 3 {
			t.Fatalf("chunk %d pages %d-%d", i, c.PageStart, c.PageEnd)
		}
		if i > 0 && !strings.HasPrefix(c.Text, "这是一个用于测试分块的中文句子。") {
			t.Fatalf("chunk %d does not start with the overlapping sentence: %q", i, c.Text)
		}
	}
}

func TestChunksHardCutAndPagesAndLines(t *testing.T) {
	long := strings.Repeat("x", 4000) // one word without spaces or sentence ends
	doc := &Document{Blocks: []Block{
		{Kind: KindParagraph, Text: "short on page one.", Page: 1},
		{Kind: KindPageBreak, Page: 2},
		{Kind: KindParagraph, Text: "and page two.", Page: 2},
		{Kind: KindParagraph, Text: long, Page: 2},
	}}
	cs := Chunks(doc, 50, 0)
	if cs[0].PageStart != 1 || cs[0].PageEnd != 2 || cs[0].Text != "short on page one.\n\nand page two." {
		t.Fatalf("first chunk %+v", cs[0])
	}
	total := 0
	for _, c := range cs[1:] {
		if Tokens(c.Text) > 50 {
			t.Fatalf("oversized %d", Tokens(c.Text))
		}
		total += len(c.Text)
	}
	if total != 4000 {
		t.Fatalf("hard cut lost text: %d of 4000", total)
	}
	code := &Document{Blocks: []Block{{Kind: KindCode, Text: strings.Repeat("line of code here\n", 30) + "end", Line: 10, EndLine: 40}}}
	cc := Chunks(code, 40, 0)
	if len(cc) < 2 || cc[0].LineStart != 10 || cc[1].LineStart <= cc[0].LineEnd-1 || cc[len(cc)-1].LineEnd != 40 {
		t.Fatalf("code chunks lines: %+v", cc)
	}
}
