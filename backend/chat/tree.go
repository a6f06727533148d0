package chat

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// A conversation is a tree of messages: regenerate adds a sibling answer, edit-and-resend
// a sibling question, and nothing is deleted. Each node keeps its chosen child (the
// session its chosen root); following the choices from the root gives the path that is
// shown and sent to the model. A choice that names no child (or none yet) means the
// newest one, so a tree whose choices were never written still has one path.

// tree indexes the messages of one session (in seq order) by parent.
type tree struct {
	msgs     []Message
	children map[string][]int // by parent id, "" for the roots; in seq order
	byID     map[string]int
}

func newTree(msgs []Message) tree {
	t := tree{msgs: msgs, children: map[string][]int{}, byID: make(map[string]int, len(msgs))}
	for i, m := range msgs {
		t.byID[m.ID] = i
		t.children[m.ParentID] = append(t.children[m.ParentID], i)
	}
	return t
}

// path is the indexes of the chosen path from the root choice.
func (t tree) path(rootChoice string) []int {
	var out []int
	choice, parent := rootChoice, ""
	for len(out) <= len(t.msgs) { // a cycle (a damaged import) cannot loop forever
		kids := t.children[parent]
		if len(kids) == 0 {
			break
		}
		next := kids[len(kids)-1]
		for _, k := range kids {
			if t.msgs[k].ID == choice {
				next = k
			}
		}
		out = append(out, next)
		parent, choice = t.msgs[next].ID, t.msgs[next].ChosenChildID
	}
	return out
}

// siblings are the ids of the messages that share m's parent, oldest first.
func (t tree) siblings(parent string) []string {
	kids := t.children[parent]
	ids := make([]string, len(kids))
	for i, k := range kids {
		ids[i] = t.msgs[k].ID
	}
	return ids
}

// Path returns the chosen path through msgs, every message of one session in the order
// they were written (rootChoice is the session's ChosenRootID): the conversation as it is
// shown. Messages with other versions carry SiblingIDs.
func Path(msgs []Message, rootChoice string) []Message {
	t := newTree(msgs)
	idx := t.path(rootChoice)
	out := make([]Message, 0, len(idx))
	for _, i := range idx {
		m := msgs[i]
		if sib := t.siblings(m.ParentID); len(sib) > 1 {
			m.SiblingIDs = sib
		}
		out = append(out, m)
	}
	return out
}

// loadTreeMeta reads a session's messages without their parts, and its root choice: what
// a send needs to place its messages.
func loadTreeMeta(ctx context.Context, q querier, sessionID string) (tree, string, error) {
	var root string
	if err := q.QueryRowContext(ctx, "SELECT chosen_root_id FROM sessions WHERE id = ?", sessionID).Scan(&root); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return tree{}, "", apperr.New(apperr.SessionNotFound, "no session %s", sessionID).WithParam("id", sessionID)
		}
		return tree{}, "", err
	}
	rows, err := q.QueryContext(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? ORDER BY seq", sessionID)
	if err != nil {
		return tree{}, "", err
	}
	defer rows.Close()
	var msgs []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return tree{}, "", err
		}
		msgs = append(msgs, m)
	}
	return newTree(msgs), root, rows.Err()
}

// choose makes child the chosen follower of parent ("" = the session's root choice).
func choose(ctx context.Context, q querier, sessionID, parent, child string) error {
	if parent == "" {
		_, err := q.ExecContext(ctx, "UPDATE sessions SET chosen_root_id = ? WHERE id = ?", child, sessionID)
		return err
	}
	_, err := q.ExecContext(ctx, "UPDATE messages SET chosen_child_id = ? WHERE id = ?", child, parent)
	return err
}

// placement is where a send puts its messages: after Parent ("" = as a new first
// message), with Hidden the messages of the old path that the new version replaces.
type placement struct {
	Parent string
	Hidden []string
}

// after places the new messages after path[i] (i = -1: before everything), hiding the
// rest of the path.
func after(t tree, path []int, i int) placement {
	var pl placement
	if i >= 0 {
		pl.Parent = t.msgs[path[i]].ID
	}
	for _, k := range path[i+1:] {
		pl.Hidden = append(pl.Hidden, t.msgs[k].ID)
	}
	return pl
}

// SelectBranch makes a message and the messages it follows the chosen path, so the
// conversation shows that version (a switcher's choice, a search hit in another branch)
// and goes on from where that branch went. The snapshot it returns is the new path;
// other windows hear branch:selected. While the session answers only a message already
// on the path can be selected (it changes nothing).
func (s *Service) SelectBranch(ctx context.Context, sessionID, messageID string) (Snapshot, error) {
	changed := false
	err := s.db.Tx(ctx, func(rawTx *sql.Tx) error {
		tx := cachedQ{c: s.stmts, tx: rawTx}
		t, root, err := loadTreeMeta(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		i, ok := t.byID[messageID]
		if !ok {
			return apperr.New(apperr.MessageNotFound, "no message %s in session %s", messageID, sessionID)
		}
		if slices.Contains(t.path(root), i) {
			return nil
		}
		if s.State(sessionID) != StateIdle {
			return apperr.New(apperr.SessionBusy, "session %s is answering", sessionID)
		}
		changed = true
		for {
			m := t.msgs[i]
			if err := choose(ctx, tx, sessionID, m.ParentID, m.ID); err != nil {
				return err
			}
			p, ok := t.byID[m.ParentID]
			if m.ParentID == "" || !ok {
				return nil
			}
			i = p
		}
	})
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return Snapshot{}, ae
		}
		return Snapshot{}, apperr.Wrap(err, apperr.Internal, "select branch")
	}
	if changed {
		s.bus.Publish(events.SessionTopic(sessionID), EventBranchSelected, BranchSelected{SessionID: sessionID, MessageID: messageID})
	}
	return s.GetSession(ctx, sessionID)
}

// Transcript is a session with every message of every branch (in the order they were
// written) and its choices: what a complete export holds.
func (s *Service) Transcript(ctx context.Context, id string) (Transcript, error) {
	sess, err := loadSession(ctx, s.q, id)
	if err != nil {
		return Transcript{}, err
	}
	msgs, err := loadMessages(ctx, s.q, id)
	if err != nil {
		return Transcript{}, err
	}
	s.nameTools(msgs)
	sess.State = ""
	return Transcript{Session: sess, Messages: msgs}, nil
}
