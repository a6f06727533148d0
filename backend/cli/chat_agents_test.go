package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/agents"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/service"
)

// TestChatShowsSubAgentsIndented: `cairn chat` prints a sub-agent's steps indented under
// the agent_run call that started it (the fake model's "agent" scenario hands the prompt
// to a sub-agent, which calls the location tool named in it: without a map key that call
// fails, without any network).
func TestChatShowsSubAgentsIndented(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	srv := llmtest.Start(t, llmtest.WithHandler(llmtest.Auto), llmtest.WithModels(llmtest.AutoModels()...))
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "fake-agent"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	s, err := service.Open(context.Background(), service.Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Chat.CreateSession(context.Background(), chat.SessionInput{Toolsets: []string{agents.Name, "location"}})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", "chat", "--session", sess.ID, `location_query {"action":"geocode","location":"Paris"}`)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "The tool returned: ") {
		t.Fatalf("chat: %+v", r)
	}
	for _, want := range []string{"[tool] agent_run ", "\n    helper: → location_query ", "\n    helper: ← location_query error\n", "[tool-result] agent_run: "} {
		if !strings.Contains(r.stderr, want) {
			t.Fatalf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}
