package docparse

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pandocSource is one Markdown document that pandoc writes in each office format, the way
// users' converters and export buttons do.
const pandocSource = "% 测试文档\n\n# 第一章 Intro\n\nHello **world**, 你好世界。\n\n## Details\n\n| a | 值 |\n|---|---|\n| 1 | 2 |\n\n# Second\n\nMore text.\n"

func pandoc(t *testing.T, format string) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.md"), filepath.Join(dir, "out."+format)
	if err := os.WriteFile(in, []byte(pandocSource), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("pandoc", in, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("pandoc (apt-get install pandoc; .ci/deps.sh does): %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestOfficeFilesWrittenByPandoc(t *testing.T) {
	body := "heading/1/pP/l0:第一章 Intro|\n" +
		"paragraph/0/pP/l0:Hello world, 你好世界。|第一章 Intro\n"
	cases := []struct {
		format, want string
	}{
		{"docx", "heading/1/p1/l0:测试文档|\n" + strings.ReplaceAll(body, "pP", "p1") +
			"heading/2/p1/l0:Details|第一章 Intro\ntable/0/p1/l0:a | 值⏎1 | 2|第一章 Intro>Details\n" +
			"heading/1/p1/l0:Second|\nparagraph/0/p1/l0:More text.|Second\n"},
		{"odt", "paragraph/0/p0/l0:测试文档|\n" + strings.ReplaceAll(body, "pP", "p0") +
			"heading/2/p0/l0:Details|第一章 Intro\ntable/0/p0/l0:a | 值⏎1 | 2|第一章 Intro>Details\n" +
			"heading/1/p0/l0:Second|\nparagraph/0/p0/l0:More text.|Second\n"},
		{"epub", "heading/1/p0/l0:测试文档|\n" + strings.ReplaceAll(body, "pP", "p0") +
			"heading/2/p0/l0:Details|第一章 Intro\ntable/0/p0/l0:a | 值⏎1 | 2|第一章 Intro>Details\n" +
			"heading/1/p0/l0:Second|\nparagraph/0/p0/l0:More text.|Second\n"},
		{"pptx", "heading/1/p1/l0:测试文档|\npage-break/0/p2/l0:|测试文档\n" + strings.ReplaceAll(body, "pP", "p2") +
			"paragraph/0/p2/l0:Details|第一章 Intro\ntable/0/p2/l0:a | 值⏎1 | 2|第一章 Intro\n" +
			"page-break/0/p3/l0:|第一章 Intro\nheading/1/p3/l0:Second|\nparagraph/0/p3/l0:More text.|Second\n"},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			doc := mustParse(t, "doc."+c.format, pandoc(t, c.format))
			if got := blockSummary(doc); got != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
			if doc.Title != "测试文档" || string(doc.Format) != c.format {
				t.Fatalf("title %q format %s", doc.Title, doc.Format)
			}
		})
	}
}
