package kb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// docSource is the Markdown pandoc turns into DOCX and ODT: English and Chinese, with a
// word found only in each document so a search can tell them apart.
func docSource(word string) string {
	return fmt.Sprintf("# Irrigation %s\n\nDrip lines water the %s beds at dawn.\n\n## 灌溉\n\n滴灌系统每天早晨浇水，节约用水。\n", word, word)
}

func pandocFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	in, out := filepath.Join(dir, name+".md"), filepath.Join(dir, name)
	if err := os.WriteFile(in, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("pandoc", in, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("pandoc (apt-get install pandoc; .ci/deps.sh does): %v\n%s", err, b)
	}
	return out
}

// ghostscriptPDF writes a two-page PDF from PostScript, as a printer driver would; the
// word is on page 2.
func ghostscriptPDF(t *testing.T, dir, name, word string) string {
	t.Helper()
	ps := "%!PS\n/Helvetica findfont 14 scalefont setfont\n" +
		"72 720 moveto (Greenhouse manual) show 72 700 moveto (Vents open when it is warm.) show showpage\n" +
		fmt.Sprintf("72 720 moveto (Chapter two) show 72 700 moveto (The %s seedlings need shade.) show showpage\n", word)
	in, out := filepath.Join(dir, name+".ps"), filepath.Join(dir, name)
	if err := os.WriteFile(in, []byte(ps), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gs", "-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "-sDEVICE=pdfwrite", "-sOutputFile="+out, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ghostscript (apt-get install ghostscript; .ci/deps.sh does): %v\n%s", err, b)
	}
	return out
}

func excelizeXLSX(t *testing.T, dir, name, word string) string {
	t.Helper()
	x := excelize.NewFile()
	defer x.Close()
	rows := [][]any{{"Crop", "Note"}, {"Basil", "likes warmth"}, {word, "harvest in autumn 秋天收获"}}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := x.SetSheetRow("Sheet1", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, name)
	if err := x.SaveAs(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRealDocumentsAddParseEmbedSearch(t *testing.T) {
	es := newEmbedServer(t, 64)
	f := newFixture(t, es)
	ctx := context.Background()
	k := f.create("library", "local/bag")
	dir := t.TempDir()
	paths := []string{
		pandocFile(t, dir, "plan.docx", docSource("zucchini")),
		pandocFile(t, dir, "plan.odt", docSource("pumpkin")),
		ghostscriptPDF(t, dir, "manual.pdf", "aubergine"),
		excelizeXLSX(t, dir, "crops.xlsx", "parsnip"),
	}
	added, err := f.svc.AddPaths(ctx, k.ID, paths, AddOptions{})
	if err != nil || len(added) != 4 {
		t.Fatalf("add: %d files, %v", len(added), err)
	}
	f.idle()
	for _, fl := range added {
		got := f.file(fl.ID)
		if got.State != StateDone || got.Chunks == 0 || got.Embedded != got.Chunks {
			t.Fatalf("%s: %+v", got.Name, got)
		}
	}
	cases := []struct {
		query, file string
		page        int
	}{
		{"zucchini beds", "plan.docx", 0},
		{"pumpkin", "plan.odt", 0},
		{"aubergine seedlings", "manual.pdf", 2},
		{"parsnip harvest", "crops.xlsx", 0},
	}
	for _, c := range cases {
		hits := f.search("library", c.query)
		if len(hits) == 0 || hits[0].File != c.file {
			t.Errorf("%q: got %v, want %s first", c.query, files(hits), c.file)
			continue
		}
		if !slices.Contains(hits[0].Via, "keyword") || !slices.Contains(hits[0].Via, "vector") {
			t.Errorf("%q: found by %v, want keyword and vector", c.query, hits[0].Via)
		}
		if c.page != 0 && (hits[0].PageStart > c.page || max(hits[0].PageStart, hits[0].PageEnd) < c.page) {
			t.Errorf("%q: pages %d-%d, want %d among them", c.query, hits[0].PageStart, hits[0].PageEnd, c.page)
		}
	}
	// A two-character Chinese word is found by keyword in the DOCX and ODT only.
	var got []string
	for _, h := range f.search("library", "滴灌") {
		if slices.Contains(h.Via, "keyword") && !slices.Contains(got, h.File) {
			got = append(got, h.File)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"plan.docx", "plan.odt"}) {
		t.Errorf("滴灌: %v", got)
	}
	if hits := f.search("library", "秋天"); len(hits) == 0 || hits[0].File != "crops.xlsx" || !strings.Contains(hits[0].Snippet, "秋天") {
		t.Errorf("秋天: %+v", hits)
	}
}
