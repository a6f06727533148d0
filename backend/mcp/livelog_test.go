package mcp

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/logring"
)

// TestLiveLogBudget: a flood of lines reaches the windows as at most the budget per
// window, in order, followed by one note with the number skipped; the next window has a
// fresh budget; nothing is published after close.
func TestLiveLogBudget(t *testing.T) {
	var mu sync.Mutex
	var got []logring.Line
	noted := make(chan struct{}, 4)
	l := newLiveLog(func(line logring.Line) {
		mu.Lock()
		got = append(got, line)
		mu.Unlock()
		if line.Stream == logring.StreamEvent {
			noted <- struct{}{}
		}
	})
	l.burst, l.window = 5, 200*time.Millisecond
	for i := range 50 {
		l.add(logring.Line{Stream: logring.StreamStderr, Text: strings.Repeat("x", i)})
	}
	select {
	case <-noted:
	case <-time.After(5 * time.Second):
		t.Fatal("no note about the skipped lines")
	}
	mu.Lock()
	if len(got) != 6 {
		t.Fatalf("published %d lines, want 5 and a note: %+v", len(got), got)
	}
	for i := range 5 {
		if len(got[i].Text) != i {
			t.Fatalf("line %d out of order: %q", i, got[i].Text)
		}
	}
	if !strings.HasPrefix(got[5].Text, "45 more lines") {
		t.Fatalf("note %q", got[5].Text)
	}
	mu.Unlock()

	l.add(logring.Line{Stream: logring.StreamStderr, Text: "fresh window"})
	mu.Lock()
	if last := got[len(got)-1]; last.Text != "fresh window" {
		t.Fatalf("a new window did not get its budget: last %q", last.Text)
	}
	mu.Unlock()

	for range 10 {
		l.add(logring.Line{Stream: logring.StreamStderr, Text: "over"})
	}
	l.close()
	l.add(logring.Line{Stream: logring.StreamStderr, Text: "after close"})
	time.Sleep(2 * l.window) // the note's timer would have fired by now
	mu.Lock()
	defer mu.Unlock()
	if n := len(got); n != 6+5 || got[n-1].Text != "over" {
		t.Fatalf("after close: %d lines, last %q", n, got[n-1].Text)
	}
}
