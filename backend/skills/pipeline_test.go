package skills

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/tools"
	"github.com/cairn-app/cairn/backend/tools/toolstest"
)

// TestThroughThePipeline: declared through the seam, the tools apply only where the
// toolset is on, the instruction is the calling conversation's, and skill_load sees that
// conversation's switches.
func TestThroughThePipeline(t *testing.T) {
	f := newFixture(t, 0)
	writeSkill(t, filepath.Join(f.dataDir, "skills", "beta"), "beta", "Beta things.", "Beta body.", nil)
	f.session("s1")
	f.session("s2")
	svc := f.start(time.Hour)
	if _, err := svc.SetEnabled(f.ctx, "beta", false); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetSessionSkill(f.ctx, "s1", "beta", "on"); err != nil {
		t.Fatal(err)
	}
	entries, err := Capability().ToolEntries(svc.Tools())
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(entries...); err != nil {
		t.Fatal(err)
	}
	p := tools.NewPipeline(reg, tools.Options{})
	scope := func(sid string) tools.Scope {
		s := toolstest.ChatScope(sid)
		s.Toolsets = []string{Name}
		return s
	}
	sel, err := p.Select(context.Background(), scope("s1"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range sel.Tools {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"skill_load", "skill_read_resource"}) || !strings.Contains(sel.Instructions, `<skill name="beta">Beta things.</skill>`) {
		t.Fatalf("s1: tools %v, instructions:\n%s", names, sel.Instructions)
	}
	if sel, _ := p.Select(context.Background(), scope("s2")); strings.Contains(sel.Instructions, "beta") {
		t.Fatalf("s2 sees a skill switched off:\n%s", sel.Instructions)
	}
	off := toolstest.ChatScope("s1")
	off.Toolsets = []string{"web"}
	if sel, _ := p.Select(context.Background(), off); len(sel.Tools) != 0 {
		t.Fatalf("toolset off: %v", sel.Tools)
	}
	out := p.RunBatch(context.Background(), []tools.Call{
		toolstest.Call("c1", "skill_load", `{"name":"beta"}`, scope("s1")),
		toolstest.Call("c2", "skill_load", `{"name":"beta"}`, scope("s2")),
	}, nil)
	if out[0].Status != tools.StatusResult || !strings.Contains(out[0].Content, "Beta body.") {
		t.Fatalf("s1: %+v", out[0])
	}
	if out[1].Status != tools.StatusError || out[1].Err == nil || out[1].Err.Code != "skill_off" {
		t.Fatalf("s2: %+v", out[1])
	}
}
