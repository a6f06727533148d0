package chat

import (
	"context"
	"testing"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestToolPartsCarryTheirNames: a tool's parts say its namespace and title, live (the
// events a window folds in) and stored, so a window never reads a wire name; a name that
// is no tool gets none; a part stored without them gets the tool's names when read.
func TestToolPartsCarryTheirNames(t *testing.T) {
	runner := newFakeRunner(func(ctx context.Context, c tools.Call) tools.Outcome { return resultOf("ok") }, "web_search")
	h := newHarness(t, runner)
	sess := h.session(SessionInput{Toolsets: []string{"web"}})
	h.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{}`}, {ID: "c2", Name: "made_up", Arguments: `{}`}}},
		llmtest.Reply{Text: "done"},
	)
	sub := h.bus.Subscribe(8192)
	defer sub.Close()
	w := &window{}
	snap0, _ := h.svc.GetSession(context.Background(), sess.ID)
	w.load(snap0)
	_, snap := h.send(sess.ID, "go")
	drainUntilIdle(t, sub, events.SessionTopic(sess.ID), w)

	want := tools.ToolRef{Namespace: "web", Title: "search"}
	check := func(where string, parts []Part) {
		t.Helper()
		named := 0
		for _, p := range parts {
			if p.Tool == nil {
				continue
			}
			switch p.Tool.Name {
			case "web_search":
				if p.Tool.ToolRef != want {
					t.Fatalf("%s: %s part of web_search carries %+v", where, p.Type, p.Tool.ToolRef)
				}
				named++
			case "made_up":
				if p.Tool.ToolRef != (tools.ToolRef{}) {
					t.Fatalf("%s: an unknown tool carries %+v", where, p.Tool.ToolRef)
				}
			}
		}
		if named < 2 {
			t.Fatalf("%s: %d named parts of web_search, want the call and its result", where, named)
		}
	}
	a := last(snap)
	check("snapshot", a.Parts)
	live := w.msg(a.ID)
	check("events", live.Parts)

	// A part written before parts carried names is named when read.
	if _, err := h.db.Exec(`UPDATE parts SET data = json_remove(data, '$.tool.namespace', '$.tool.title') WHERE message_id = ?`, a.ID); err != nil {
		t.Fatal(err)
	}
	again, err := h.svc.GetSession(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("read back", last(again).Parts)
}
