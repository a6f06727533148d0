package main

import (
	"strings"
	"testing"
)

// TestGenerateSpellsWhatEncodingJSONWrites: the generated TypeScript for a small facade
// has each method's arguments (no context) and result, the events, and every struct
// field as encoding/json writes it.
func TestGenerateSpellsWhatEncodingJSONWrites(t *testing.T) {
	src, err := generate("testdata/facade")
	if err != nil {
		t.Fatal(err)
	}
	out := string(src)
	for _, want := range []string{
		"  Get(id: string, arg2: Kind): Promise<Thing>;\n",
		"  Drop(id: string): Promise<void>;\n",
		`  "thing:changed": Thing;` + "\n",
		"  /** A thing changed. */\n",
		"/** Thing is what Get returns. */\nexport interface Thing {\n  id: string;\n",
		"  /** Kind says what it is. */\n  kind: Kind;\n",
		"  note?: string;\n",
		"  parent?: Thing;\n",
		"  next: Thing | null;\n",
		"  tags: string[];\n",
		"  blob: string;\n",
		"  meta: Record<string, unknown>;\n",
		"  raw: unknown;\n",
		"  at: string;\n",
		"  count: string;\n",
		"  NoTag: boolean;\n",
		`export type Kind = "a" | "b";`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"unexported", "Hidden", "internal", "secret", "ctx", "interface Base"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("%q should not be generated:\n%s", unwanted, out)
		}
	}
}

// TestGeneratedFileIsCurrent: the committed wire types are what the facade says now
// (make gen writes them).
func TestGeneratedFileIsCurrent(t *testing.T) {
	if err := run("../../..", "../../../frontend/src/api/generated.ts", true); err != nil {
		t.Fatal(err)
	}
}
