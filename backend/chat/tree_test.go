package chat

import (
	"slices"
	"testing"
)

// TestPath: the chosen path follows each node's choice from the root choice; a choice
// that names no child (or none) means the newest child; versions carry their siblings.
func TestPath(t *testing.T) {
	m := func(id, parent, chosen string) Message {
		return Message{ID: id, ParentID: parent, ChosenChildID: chosen}
	}
	// u1 ─ a1 ─ u2 ─ a2
	//         └ a1b        (a1's sibling)
	// u1b ─ a3             (u1's sibling, an edit)
	tree := []Message{m("u1", "", "a1"), m("a1", "u1", "u2"), m("u2", "a1", ""), m("a2", "u2", ""), m("a1b", "u1", ""), m("u1b", "", ""), m("a3", "u1b", "")}
	cases := []struct {
		name string
		msgs []Message
		root string
		want []string
		sibs map[string][]string
	}{
		{"empty", nil, "", []string{}, nil},
		{"chosen choices", tree, "u1", []string{"u1", "a1", "u2", "a2"},
			map[string][]string{"u1": {"u1", "u1b"}, "a1": {"a1", "a1b"}}},
		{"no root choice: the newest root", tree, "", []string{"u1b", "a3"}, map[string][]string{"u1b": {"u1", "u1b"}}},
		{"a choice naming no child: the newest", []Message{m("u1", "", "gone"), m("a1", "u1", ""), m("a1b", "u1", "")}, "u1",
			[]string{"u1", "a1b"}, map[string][]string{"a1b": {"a1", "a1b"}}},
		{"a line", []Message{m("u1", "", "a1"), m("a1", "u1", "")}, "u1", []string{"u1", "a1"}, nil},
		{"a cycle ends", []Message{m("x", "y", "y"), m("y", "x", "x")}, "", []string{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Path(c.msgs, c.root)
			ids := []string{}
			for _, g := range got {
				ids = append(ids, g.ID)
				if want := c.sibs[g.ID]; !slices.Equal(g.SiblingIDs, want) {
					t.Errorf("%s siblings = %v, want %v", g.ID, g.SiblingIDs, want)
				}
			}
			if !slices.Equal(ids, c.want) {
				t.Errorf("path = %v, want %v", ids, c.want)
			}
		})
	}
}

// TestLinkTree: a transcript without parents becomes a line; a tree keeps its links and
// choices, and a parent that does not come first makes a first message.
func TestLinkTree(t *testing.T) {
	line := Transcript{Messages: []Message{{ID: "a"}, {ID: "b"}, {ID: "c"}}}
	linkTree(&line)
	if line.Session.ChosenRootID != "a" || line.Messages[1].ParentID != "a" || line.Messages[2].ParentID != "b" ||
		line.Messages[0].ChosenChildID != "b" || line.Messages[1].ChosenChildID != "c" {
		t.Errorf("line = %+v root %q", line.Messages, line.Session.ChosenRootID)
	}
	tr := Transcript{Session: Session{ChosenRootID: "a"}, Messages: []Message{{ID: "a", ChosenChildID: "c"}, {ID: "b", ParentID: "a"}, {ID: "c", ParentID: "a"}, {ID: "d", ParentID: "z"}}}
	linkTree(&tr)
	if tr.Session.ChosenRootID != "a" || tr.Messages[0].ChosenChildID != "c" || tr.Messages[2].ParentID != "a" || tr.Messages[3].ParentID != "" {
		t.Errorf("tree = %+v", tr.Messages)
	}
	// Rekey keeps the shape under new ids.
	Rekey(&tr)
	p := Path(tr.Messages, tr.Session.ChosenRootID)
	if len(p) != 2 || p[0].ID != tr.Messages[0].ID || p[1].ID != tr.Messages[2].ID {
		t.Errorf("rekeyed path = %+v", p)
	}
}
