package secrets

import (
	"context"
	"testing"

	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/redact"
	"github.com/cairn-app/cairn/backend/store"
)

// TestTheRedactorLearnsEveryValue: values stored before Open are read into the redactor
// in the background (redaction waits for them), new ones as they are set; deleted ones stay
// redacted for the life of the process.
func TestTheRedactorLearnsEveryValue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first := Open(ctx, dir, db, events.NewBus(), Options{Force: BackendFile})
	for name, v := range map[string]string{"provider.p1.apiKey": "sk-before-open-0001", "websearch.tavily": "tvly-before-open-02"} {
		if err := first.Set(ctx, name, v); err != nil {
			t.Fatal(err)
		}
	}
	red := redact.New()
	s := Open(ctx, dir, db, events.NewBus(), Options{Force: BackendFile, Redact: red})
	if got := red.String("a sk-before-open-0001 b tvly-before-open-02"); got != "a [redacted] b [redacted]" {
		t.Fatalf("values stored before Open: %q", got)
	}
	if err := s.Set(ctx, "mcp.srv.env.TOKEN", "ghp_after_open_0003"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "provider.p1.apiKey"); err != nil {
		t.Fatal(err)
	}
	if got := red.String("ghp_after_open_0003 sk-before-open-0001"); got != "[redacted] [redacted]" {
		t.Fatalf("values set and deleted since: %q", got)
	}
}
