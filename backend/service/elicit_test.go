package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/elicit"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/mcp"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/tools"
)

// elicitServer opens the backend with server-everything configured over stdio; its
// trigger-elicitation-request tool asks for a form of every field kind MCP allows.
func elicitServer(t *testing.T) (*Services, string, *events.Subscription) {
	t.Helper()
	mcptest.NeedNPM(t)
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	v, err := s.MCP.Save(context.Background(), mcp.Server{Name: "Everything", Transport: mcp.TransportStdio,
		Command: mcptest.Node(t), Args: []string{mcptest.Everything(), "stdio"}, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Bus.Subscribe(256)
	t.Cleanup(sub.Close)
	return s, v.ID, sub
}

// nextElicitation waits for the next event of type typ on the elicitations topic.
func nextElicitation(t *testing.T, sub *events.Subscription, typ string) elicit.Request {
	t.Helper()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	for {
		select {
		case ev := <-sub.C:
			if ev.Topic != events.TopicElicitations || ev.Type != typ {
				continue
			}
			var r elicit.Request
			if err := json.Unmarshal(ev.Data, &r); err != nil {
				t.Fatal(err)
			}
			return r
		case <-timer.C:
			t.Fatalf("no %s event", typ)
		}
	}
}

type callResult struct {
	res tools.Result
	err error
}

// callElicitTool calls the eliciting tool in the background.
func callElicitTool(ctx context.Context, s *Services, id string) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		res, err := s.MCP.CallTool(ctx, id, "trigger-elicitation-request", json.RawMessage(`{}`), nil)
		done <- callResult{res, err}
	}()
	return done
}

func waitCall(t *testing.T, done <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the tool call did not end")
		return callResult{}
	}
}

// TestElicitationThroughTheBroker: a real server asks (server-everything's
// trigger-elicitation-request); the broker announces the form with its fields, and the
// answer given through it reaches the server: accepted values (with the schema's
// defaults filled in for fields left out), decline, cancel. A content missing a
// required field is refused and the question stays open.
func TestElicitationThroughTheBroker(t *testing.T) {
	s, id, sub := elicitServer(t)
	tests := []struct {
		name    string
		action  elicit.Action
		content map[string]any
		want    []string
	}{
		{name: "accept", action: elicit.Accept,
			content: map[string]any{"name": "Grace Hopper", "check": true, "integer": float64(7), "untitledMultipleSelectEnum": []any{"Piano", "Drums"}},
			want: []string{"User provided the requested information", "- Name: Grace Hopper", "- Agreed to terms: true",
				"- Favorite Integer: 7", `"firstLine": "It was a dark and stormy night."`, `"Piano"`}},
		{name: "decline", action: elicit.Decline, want: []string{"User declined"}},
		{name: "cancel", action: elicit.Cancel, want: []string{"User cancelled"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := callElicitTool(ctxFor(t, 60*time.Second), s, id)
			req := nextElicitation(t, sub, elicit.EventRequested)
			if req.Server != "Everything" || req.ServerID != id || req.Status != elicit.StatusPending || req.Message == "" {
				t.Fatalf("request %+v", req)
			}
			if f := fieldOf(req, "name"); f == nil || !f.Required || f.Kind != elicit.KindString || req.Fields[0].Name != "name" {
				t.Fatalf("the required name field is not first: %+v", req.Fields)
			}
			if f := fieldOf(req, "titledSingleSelectEnum"); f == nil || f.Kind != elicit.KindEnum || len(f.Options) != 3 || f.Options[0].Title != "Superman" {
				t.Fatalf("titled enum field %+v", f)
			}
			if p, _ := s.Elicit.Pending(context.Background()); len(p.Requests) != 1 || p.Requests[0].ID != req.ID {
				t.Fatalf("pending %+v", p)
			}
			if tc.action == elicit.Accept {
				_, err := s.Elicit.Answer(context.Background(), req.ID, elicit.Accept, map[string]any{"check": true}, "w1")
				if !apperr.Is(err, apperr.ElicitationInvalid) {
					t.Fatalf("accepting without the required name: %v", err)
				}
			}
			got, err := s.Elicit.Answer(context.Background(), req.ID, tc.action, tc.content, "w1")
			if err != nil {
				t.Fatal(err)
			}
			if got.Window != "w1" {
				t.Errorf("answered by %q", got.Window)
			}
			if ev := nextElicitation(t, sub, elicit.EventAnswered); ev.ID != req.ID || ev.Status == elicit.StatusPending {
				t.Errorf("answered event %+v", ev)
			}
			r := waitCall(t, done)
			if r.err != nil {
				t.Fatal(r.err)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.res.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, r.res.Content)
				}
			}
		})
	}
}

// TestElicitationFirstAnswerWins: two windows answer one question; the first answer
// reaches the server, the second is told who answered.
func TestElicitationFirstAnswerWins(t *testing.T) {
	s, id, sub := elicitServer(t)
	done := callElicitTool(ctxFor(t, 60*time.Second), s, id)
	req := nextElicitation(t, sub, elicit.EventRequested)
	if _, err := s.Elicit.Answer(context.Background(), req.ID, elicit.Decline, nil, "window-a"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Elicit.Answer(context.Background(), req.ID, elicit.Accept, map[string]any{"name": "late"}, "window-b")
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.ElicitationAlreadyAnswered || ae.Params["window"] != "window-a" {
		t.Fatalf("second answer: %v", err)
	}
	if r := waitCall(t, done); r.err != nil || !strings.Contains(r.res.Content, "User declined") {
		t.Fatalf("result %+v", r)
	}
}

// TestElicitationEndsWithTheCall: when the tool call is stopped, its question closes in
// every window (an answered event with status ended) and a late answer is refused.
func TestElicitationEndsWithTheCall(t *testing.T) {
	s, id, sub := elicitServer(t)
	ctx, cancel := context.WithCancel(ctxFor(t, 60*time.Second))
	done := callElicitTool(ctx, s, id)
	req := nextElicitation(t, sub, elicit.EventRequested)
	cancel()
	if ev := nextElicitation(t, sub, elicit.EventAnswered); ev.ID != req.ID || ev.Status != elicit.StatusEnded {
		t.Fatalf("after the stop: %+v", ev)
	}
	if r := waitCall(t, done); r.err == nil {
		t.Fatalf("the stopped call returned %+v", r.res)
	}
	if p, _ := s.Elicit.Pending(context.Background()); len(p.Requests) != 0 {
		t.Fatalf("still pending: %+v", p.Requests)
	}
	if _, err := s.Elicit.Answer(context.Background(), req.ID, elicit.Decline, nil, "w"); !apperr.Is(err, apperr.ElicitationNotFound) {
		t.Fatalf("late answer: %v", err)
	}
}

func fieldOf(r elicit.Request, name string) *elicit.Field {
	for i := range r.Fields {
		if r.Fields[i].Name == name {
			return &r.Fields[i]
		}
	}
	return nil
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
