package kb

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestFileViewReadsAsTheDocument adds a document long enough for many overlapping chunks
// and reads it back for the viewer: every sentence once, in order, each passage its
// chunk's, the file not on disk.
func TestFileViewReadsAsTheDocument(t *testing.T) {
	f := newFixture(t, nil)
	k := f.create("view", "")
	ctx := context.Background()
	var doc strings.Builder
	doc.WriteString("# Field guide\n\n")
	var sentences []string
	for i := 0; i < 60; i++ {
		s := fmt.Sprintf("Sentence %d tells about bird number %d and its song.", i, i)
		sentences = append(sentences, s)
		doc.WriteString(s + " ")
		if i%7 == 6 {
			doc.WriteString("\n\n")
		}
	}
	fl, err := f.svc.AddText(ctx, k.ID, "birds.md", doc.String())
	if err != nil {
		t.Fatal(err)
	}
	f.idle()
	v, err := f.svc.FileView(ctx, fl.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Passages) < 5 || v.OnDisk || v.Truncated || v.File.Name != "birds.md" {
		t.Fatalf("view: %d passages, on disk %v, truncated %v, file %q", len(v.Passages), v.OnDisk, v.Truncated, v.File.Name)
	}
	var all strings.Builder
	for i, p := range v.Passages {
		if p.Index != i || p.ChunkID == 0 {
			t.Fatalf("passage %d: index %d chunk %d", i, p.Index, p.ChunkID)
		}
		all.WriteString(p.Text + "\n")
	}
	text := all.String()
	at := 0
	for _, s := range sentences {
		if n := strings.Count(text, s); n != 1 {
			t.Fatalf("%q appears %d times in the view", s, n)
		}
		i := strings.Index(text, s)
		if i < at {
			t.Fatalf("%q out of order", s)
		}
		at = i
	}
	if _, err := f.svc.FileView(ctx, "nope"); err == nil {
		t.Fatal("view of a missing file: no error")
	}
}

func TestOverlap(t *testing.T) {
	cases := []struct {
		prev, cur string
		want      int
	}{
		{"", "First chunk.", 0},
		{"One. Two.", "Two.\n\nThree.", 4},
		{"One.\n\nTwo. Three.", "Two. Three.\n\nFour.", 11},
		{"A b c.", "Different.\n\nText.", 0},
		{"Ends with max.", "x.\n\nno", 0}, // not where a sentence of prev starts
		{"Same.", "Same.", 5},
	}
	for _, c := range cases {
		if got := overlap(c.prev, c.cur); got != c.want {
			t.Errorf("overlap(%q, %q) = %d, want %d", c.prev, c.cur, got, c.want)
		}
	}
}
