// Package elicit is the broker of MCP elicitation: a server that asks the user for input
// (elicitation/create) waits here while every window shows the form and the terminal
// of `cairn chat` may ask too. The first answer wins, as with approvals; the others get
// elicitation_already_answered. Requests live in memory only: a request's server waits
// on an open connection, which does not outlive the process.
package elicit

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
)

// Action is the user's answer: accept (with the form's content), decline or cancel
// (dismissed without a choice), as MCP names them.
type Action string

const (
	Accept  Action = "accept"
	Decline Action = "decline"
	Cancel  Action = "cancel"
)

// Status is where a request stands.
type Status string

const (
	StatusPending   Status = "pending"
	StatusAccepted  Status = "accepted"
	StatusDeclined  Status = "declined"
	StatusCancelled Status = "cancelled"
	// StatusEnded: nobody answered before the server, the tool call or Cairn stopped
	// waiting.
	StatusEnded Status = "ended"
)

// Event types on events.TopicElicitations; each carries a Request.
const (
	EventRequested = "elicitation:requested"
	// EventAnswered: answered, or ended; every window closes its dialog.
	EventAnswered = "elicitation:answered"
)

// Request is one question of a server, as every window shows it.
type Request struct {
	ID       string `json:"id"`
	ServerID string `json:"serverId"`
	// Server is the server's name for people.
	Server string `json:"server"`
	// SessionID and CallID are the chat and tool call whose server asks, when Cairn
	// knows them (the server had one call running).
	SessionID string  `json:"sessionId,omitempty"`
	CallID    string  `json:"callId,omitempty"`
	Message   string  `json:"message"`
	Fields    []Field `json:"fields"`
	Status    Status  `json:"status"`
	// Window answered it (when answered).
	Window    string `json:"window,omitempty"`
	CreatedAt int64  `json:"createdAt"`
}

// Pending is the snapshot of the requests waiting for an answer, with the topic's seq.
type Pending struct {
	Seq      uint64    `json:"seq"`
	Requests []Request `json:"requests"`
}

// Question is what a server asks: its message and requested schema, and what Cairn knows
// of who asks.
type Question struct {
	ServerID, Server  string
	SessionID, CallID string
	Message           string
	Schema            any
}

// Answer is what goes back to the server.
type Answer struct {
	Action  Action
	Content map[string]any
}

// Broker holds the requests waiting for an answer.
type Broker struct {
	bus *events.Bus
	log *slog.Logger

	mu      sync.Mutex
	pending map[string]*waiting
	done    []Request // the last answered requests, for a late window's message
	closed  bool
}

type waiting struct {
	req    Request
	answer chan Answer // buffered: the one answer
}

// keepDone is how many answered requests the broker remembers to tell a late window who
// answered; older ones are "not found".
const keepDone = 64

// New returns a broker that announces on bus.
func New(bus *events.Bus, log *slog.Logger) *Broker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Broker{bus: bus, log: log, pending: map[string]*waiting{}}
}

// Ask announces q and waits for the first answer, or until ctx ends (the server or the
// tool call stopped waiting), when every window's dialog closes. A schema a form cannot
// show is declined at once, telling no window.
func (b *Broker) Ask(ctx context.Context, q Question) (Answer, error) {
	fields, err := Fields(q.Schema)
	if err != nil {
		b.log.Warn("elicitation schema refused", "server", q.Server, "err", err)
		return Answer{}, err
	}
	w := &waiting{answer: make(chan Answer, 1), req: Request{ID: newID(), ServerID: q.ServerID, Server: q.Server,
		SessionID: q.SessionID, CallID: q.CallID, Message: q.Message, Fields: fields, Status: StatusPending,
		CreatedAt: time.Now().UnixMilli()}}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return Answer{Action: Cancel}, nil
	}
	b.pending[w.req.ID] = w
	b.bus.Publish(events.TopicElicitations, EventRequested, w.req)
	b.mu.Unlock()
	select {
	case a := <-w.answer:
		return a, nil
	case <-ctx.Done():
		b.end(w.req.ID, StatusEnded, "", nil)
		// An answer given at the same moment wins over the end.
		select {
		case a := <-w.answer:
			return a, nil
		default:
			return Answer{}, ctx.Err()
		}
	}
}

// Answer records the first answer to a request: accept with content (checked against
// the form's fields; a bad one leaves the request pending), decline or cancel. window
// names who answered.
func (b *Broker) Answer(_ context.Context, id string, action Action, content map[string]any, window string) (Request, error) {
	status, ok := map[Action]Status{Accept: StatusAccepted, Decline: StatusDeclined, Cancel: StatusCancelled}[action]
	if !ok {
		return Request{}, apperr.New(apperr.ElicitationActionInvalid, "unknown answer %s: accept, decline or cancel", apperr.Quote(string(action))).
			WithParam("action", apperr.Quote(string(action)))
	}
	b.mu.Lock()
	w := b.pending[id]
	b.mu.Unlock()
	if w == nil {
		return Request{}, b.gone(id)
	}
	var sent map[string]any
	if action == Accept {
		var err error
		if sent, err = Check(w.req.Fields, content); err != nil {
			return w.req, err
		}
	}
	r, won := b.end(id, status, window, &Answer{Action: action, Content: sent})
	if !won {
		return Request{}, b.gone(id)
	}
	return r, nil
}

// end settles a pending request once: it leaves the pending set, its answer (if any)
// goes to the waiting server and every window hears of it. It reports whether this call
// was the one that settled it.
func (b *Broker) end(id string, status Status, window string, a *Answer) (Request, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.pending[id]
	if w == nil {
		return Request{}, false
	}
	delete(b.pending, id)
	w.req.Status, w.req.Window = status, window
	if a != nil {
		w.answer <- *a
	}
	b.done = append(b.done, w.req)
	if len(b.done) > keepDone {
		b.done = slices.Delete(b.done, 0, len(b.done)-keepDone)
	}
	b.bus.Publish(events.TopicElicitations, EventAnswered, w.req)
	return w.req, true
}

// gone is the error of an answer to a request no longer pending.
func (b *Broker) gone(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.done {
		if r.ID != id {
			continue
		}
		if r.Status == StatusEnded {
			return apperr.New(apperr.ElicitationNotFound, "%s stopped waiting for an answer", r.Server).WithParam("server", r.Server)
		}
		return apperr.New(apperr.ElicitationAlreadyAnswered, "already answered (%s) in %s", r.Status, r.Window).
			WithParam("status", string(r.Status)).WithParam("window", r.Window)
	}
	return apperr.New(apperr.ElicitationNotFound, "no elicitation request %s", apperr.Quote(id)).WithParam("server", "")
}

// Pending lists the requests waiting for an answer, oldest first, with the topic's seq.
func (b *Broker) Pending(context.Context) (Pending, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := Pending{Seq: b.bus.Seq(events.TopicElicitations), Requests: []Request{}}
	for _, w := range b.pending {
		out.Requests = append(out.Requests, w.req)
	}
	slices.SortFunc(out.Requests, func(x, y Request) int {
		return cmp.Or(cmp.Compare(x.CreatedAt, y.CreatedAt), cmp.Compare(x.ID, y.ID))
	})
	return out, nil
}

// Close cancels every pending request (the servers get "cancel") and refuses new ones.
func (b *Broker) Close() error {
	b.mu.Lock()
	b.closed = true
	ids := make([]string, 0, len(b.pending))
	for id := range b.pending {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.end(id, StatusEnded, "", &Answer{Action: Cancel})
	}
	return nil
}

func newID() string {
	var raw [12]byte
	_, _ = rand.Read(raw[:])
	return "el_" + hex.EncodeToString(raw[:])
}
