package approval_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/cairn-app/cairn/backend/approval"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/pidcheck"
)

// TestPendingOfAReusedPIDIsInterrupted: a request whose owner died while its PID went to
// another running process (one that started at another time) is interrupted at the next
// start; one whose owner still runs is left pending.
func TestPendingOfAReusedPIDIsInterrupted(t *testing.T) {
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	start, ok := pidcheck.StartTime(other.Process.Pid)
	reused := approval.StatusInterrupted
	if !ok {
		reused = approval.StatusPending // no start times here: the PID alone decides
	}
	tests := []struct {
		name  string
		start int64
		want  approval.Status
	}{
		{"PID reused by a later process", start - 1, reused},
		{"the owner still runs", start, approval.StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			sub := e.bus.Subscribe(256)
			defer sub.Close()
			ctxA, stopA := context.WithCancel(e.ctx)
			defer stopA()
			e.run(ctxA, nil, call("c1", "test_write", `{"path":"a"}`, "s1"))
			req := nextEvent(t, sub, approval.EventRequested)
			// The row now says another process, and another instance, waits for it.
			if _, err := e.db.ExecContext(e.ctx, "UPDATE approval_requests SET owner_pid = ?, owner_start = ?, owner_id = 'elsewhere' WHERE id = ?",
				other.Process.Pid, tt.start, req.ID); err != nil {
				t.Fatal(err)
			}
			svc2 := e.open(e.db, events.NewBus())
			r, err := svc2.Get(e.ctx, req.ID)
			if err != nil || r.Status != tt.want {
				t.Fatalf("after restart: %s %v, want %s", r.Status, err, tt.want)
			}
		})
	}
}
