package kb

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/tools"
)

func run(t *testing.T, e tools.Entry, args string) tools.Result {
	t.Helper()
	ctx := context.Background()
	if err := e.ValidateInput(ctx, json.RawMessage(args)); err != nil {
		t.Fatalf("%s %s: %v", e.Name, args, err)
	}
	res, err := e.Execute(ctx, json.RawMessage(args), func(tools.Progress) {})
	if err != nil {
		t.Fatalf("%s %s: %v", e.Name, args, err)
	}
	return res
}

func TestToolsEndToEnd(t *testing.T) {
	es := newEmbedServer(t, 32)
	f := newFixture(t, es)
	k := f.create("manuals", "local/bag")
	ctx := context.Background()
	g, _ := f.svc.AddText(ctx, k.ID, "garden.md", english)
	f.svc.AddText(ctx, k.ID, "数据库.md", chinese)
	f.idle()
	byName := map[string]tools.Entry{}
	for _, e := range f.svc.Tools(f.svc.Catalog(ctx)) {
		if err := tools.NewRegistry().Register(e); err != nil {
			t.Fatalf("register %s: %v", e.Name, err)
		}
		byName[e.Name] = e
	}
	instr := byName["kb_search"].Instruction
	if !strings.Contains(instr, `"manuals": 2 files`) || !strings.Contains(instr, `"garden.md"`) {
		t.Errorf("instruction: %s", instr)
	}

	res := run(t, byName["kb_search"], `{"query":"索引","topK":3,"kbs":["manuals"]}`)
	if !strings.Contains(res.Content, "数据库.md") || !strings.Contains(res.Content, "lines") {
		t.Errorf("kb_search: %s", res.Content)
	}
	var d SearchDisplay
	if err := json.Unmarshal(res.Display, &d); err != nil || len(d.Hits) == 0 || d.Hits[0].File != "数据库.md" || d.KBs[0] != "manuals" {
		t.Errorf("kb_search display: %s", res.Display)
	}
	if err := byName["kb_search"].ValidateInput(ctx, json.RawMessage(`{"query":"  "}`)); err == nil {
		t.Error("an empty query was accepted")
	}

	res = run(t, byName["kb_list_files"], `{"kb":"manuals"}`)
	if !strings.Contains(res.Content, "garden.md (id "+g.ID) || !strings.Contains(res.Content, "2 files") {
		t.Errorf("kb_list_files: %s", res.Content)
	}

	res = run(t, byName["kb_file_meta"], `{"fileId":"`+g.ID+`"}`)
	if !strings.Contains(res.Content, "state done") || !strings.Contains(res.Content, "manuals") {
		t.Errorf("kb_file_meta: %s", res.Content)
	}

	res = run(t, byName["kb_read_chunks"], `{"fileId":"`+g.ID+`","from":0,"to":5}`)
	if !strings.Contains(res.Content, "chunk 0") || !strings.Contains(res.Content, "Aphids") {
		t.Errorf("kb_read_chunks: %s", res.Content)
	}
	if _, err := byName["kb_file_meta"].Execute(ctx, json.RawMessage(`{"fileId":"nope"}`), nil); err == nil {
		t.Error("an unknown file was found")
	}
}
