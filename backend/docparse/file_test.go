package docparse

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
)

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "说明.md")
	if err := os.WriteFile(p, []byte("# 标题\n\n正文"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, err := ParseFile(context.Background(), p, Options{})
	if err != nil || doc.Title != "标题" || len(doc.Blocks) != 2 {
		t.Fatalf("%v %+v", err, doc)
	}
	_, err = ParseFile(context.Background(), filepath.Join(dir, "missing.txt"), Options{})
	wantCode(t, err, apperr.NotFound)
	_, err = ParseFile(context.Background(), dir, Options{})
	wantCode(t, err, apperr.DocUnsupportedType)
}

func TestSupportedExtension(t *testing.T) {
	for name, want := range map[string]bool{"a.PDF": true, "b.docx": true, "Makefile": true, "x.go": true,
		"notes.md": true, "photo.jpg": false, "app.exe": false, "archive.zip": false, "noext": false} {
		if got := SupportedExtension(name); got != want {
			t.Errorf("SupportedExtension(%q) = %v", name, got)
		}
	}
}
