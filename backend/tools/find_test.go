package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFindMatchesActivePool: the per-call lookup gives the same record as resolving the
// name in the scope's whole active pool, for names shared by several namespaces, tools
// that apply only to some scopes, disabled names, aliases and unknown names.
func TestFindMatchesActivePool(t *testing.T) {
	noop := func(context.Context, json.RawMessage, func(Progress)) (Result, error) { return Result{}, nil }
	r := NewRegistry()
	toolsets := []string{"web", "kb", "file", "mcp"}
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("tool_%02d", i))
	}
	for n, ts := range toolsets {
		var es []Entry
		for i, name := range names {
			if (i+n)%3 == 0 {
				continue // not every namespace has every name
			}
			e := Entry{Name: name, Namespace: "ns-" + ts, Description: name, Execute: noop}
			if i%2 == 0 {
				e.Applies = WhenToolset(ts)
			}
			if i%7 == 0 {
				e.Aliases = []string{fmt.Sprintf("old_%s_%s", ts, name)}
			}
			es = append(es, e)
		}
		if err := r.ReplaceNamespace("ns-"+ts, es); err != nil {
			t.Fatal(err)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var scope Scope
		for _, ts := range toolsets {
			if rnd.IntN(2) == 0 {
				scope.Toolsets = append(scope.Toolsets, ts)
			}
		}
		if rnd.IntN(3) == 0 {
			scope.Disabled = map[string]bool{names[rnd.IntN(len(names))]: true}
		}
		var name string
		switch rnd.IntN(4) {
		case 0:
			name = fmt.Sprintf("old_%s_%s", toolsets[rnd.IntN(len(toolsets))], names[rnd.IntN(len(names))])
		case 1:
			name = "no_such_tool"
		default:
			name = names[rnd.IntN(len(names))]
		}
		if got, want := r.find(scope, name), resolve(r.active(scope), name); got != want {
			t.Fatalf("find(%+v, %q) = %v, resolve in the active pool = %v", scope, name, got, want)
		}
	}
}
