package toolstest

import (
	"context"
	"testing"

	"github.com/cairn-app/cairn/backend/tools"
)

func TestHugeTextIsExact(t *testing.T) {
	for _, n := range []int{0, 1, 39, 40, 100_001} {
		if got := len(HugeText(n)); got != n {
			t.Fatalf("HugeText(%d) has %d bytes", n, got)
		}
	}
}

func TestMCPLikeRegistersWithUniqueNames(t *testing.T) {
	es := MCPLike("srv", "GitHub", 150)
	r := tools.NewRegistry()
	if err := r.ReplaceNamespace("mcp:srv", es); err != nil {
		t.Fatal(err)
	}
	if n := len(r.List()); n != 150 {
		t.Fatalf("%d tools registered, want 150", n)
	}
}

func TestSlowHonoursContext(t *testing.T) {
	s := NewSlow()
	e := s.Entry("test_slow", true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var progressed bool
	if _, err := e.Execute(ctx, nil, func(tools.Progress) { progressed = true }); err == nil || !progressed {
		t.Fatalf("cancelled slow tool: err %v, progress %v", err, progressed)
	}
	s.Release()
	s.Release() // idempotent
	if r, err := e.Execute(context.Background(), nil, func(tools.Progress) {}); err != nil || r.Content != "released " {
		t.Fatalf("released slow tool: %q %v", r.Content, err)
	}
}
