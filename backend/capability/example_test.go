package capability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/tools"
)

// noteInput is the input of notes_read: its schema is generated from it.
type noteInput struct {
	Path string `json:"path" jsonschema:"The note to read, relative to the workspace"`
}

// Example declares a small capability, "notes", with one typed tool, and runs a call of it
// the way service wires it: the entry gets the capability's namespace, applies only where
// the toolset is on, and says itself what the call touches.
func Example() {
	read := tools.Typed(tools.TypedTool[noteInput]{
		Name: tools.BuiltinName("notes", "read"), Description: "Read a note.", ReadOnly: true,
		Touches: func(in noteInput) tools.Touches { return tools.Touches{Paths: []string{in.Path}} },
		Run: func(_ context.Context, in noteInput, _ func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: "contents of " + in.Path}, nil
		},
	})
	notes := capability.Capability{
		Name: "notes", Label: "chat:tools.namespace.notes", Icon: "book",
		Instruction: "Quote notes exactly.", Tools: []tools.Entry{read},
	}
	if err := (capability.List{notes}).Check(); err != nil {
		fmt.Println(err)
		return
	}
	entries, err := notes.ToolEntries(notes.Tools)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := tools.NewRegistry()
	if err := reg.Register(entries...); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(entries[0].InputSchema))
	touched, _ := entries[0].Touches(json.RawMessage(`{"path":"ideas.md"}`))
	fmt.Println("touches:", strings.Join(touched.AllPaths(), ", "))

	p := tools.NewPipeline(reg, tools.Options{})
	scope := tools.Scope{SessionID: "s1", Toolsets: []string{"notes"}, Model: tools.ModelCaps{SupportsTools: true, ContextWindow: 100000}}
	sel, _ := p.Select(context.Background(), scope)
	fmt.Println("offered:", sel.Tools[0].Name, "|", strings.TrimSpace(sel.Instructions) != "")
	out := p.RunBatch(context.Background(), []tools.Call{{ID: "c1", Name: "notes_read", Arguments: `{"path":"ideas.md"}`, SessionID: "s1", Scope: scope}}, nil)
	fmt.Println(out[0].Status, out[0].Content)
	// Output:
	// {"type":"object","properties":{"path":{"type":"string","description":"The note to read, relative to the workspace"}},"required":["path"],"additionalProperties":false}
	// touches: ideas.md
	// offered: notes_read | true
	// tool-result contents of ideas.md
}
