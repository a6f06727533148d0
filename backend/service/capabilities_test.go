package service

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/settings"
	"github.com/cairn-app/cairn/backend/tools"
)

// TestCapabilityListIsSound: no two capabilities claim one toolset, secret, setting or
// command, and every name can start a wire name.
func TestCapabilityListIsSound(t *testing.T) {
	if err := Capabilities().Check(); err != nil {
		t.Fatal(err)
	}
}

// TestListsDerivedFromCapabilities: the toolsets a session may enable and their defaults,
// and the secrets Settings manages, come from the one list.
func TestListsDerivedFromCapabilities(t *testing.T) {
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if got, want := s.Secrets.Known(), Capabilities().Secrets(); !slices.Equal(got, want) || !slices.Contains(got, "websearch.tavily") {
		t.Fatalf("known secrets = %v, want %v", got, want)
	}
	for kind, want := range map[string][]string{chat.KindChat: {"mcp", "skill"}, chat.KindTask: {"mcp", "sandbox", "skill"}} {
		sess, err := s.Chat.CreateSession(ctx, chat.SessionInput{Kind: kind})
		if err != nil || !slices.Equal(sess.Toolsets, want) {
			t.Fatalf("new %s session toolsets = %v (%v), want %v", kind, sess.Toolsets, err, want)
		}
	}
	if _, err := s.Chat.CreateSession(ctx, chat.SessionInput{Toolsets: []string{"meta"}}); !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("the meta toolset is not a session's choice: %v", err)
	}
	for _, ts := range Capabilities().Choosable() {
		if _, err := s.Chat.CreateSession(ctx, chat.SessionInput{Toolsets: []string{ts}}); err != nil {
			t.Fatalf("toolset %s refused: %v", ts, err)
		}
	}
}

// TestOpenWalksTheCapabilities: a capability's tools join the registry in its namespace,
// only for sessions that enable it; its settings and secrets are known; it is opened with
// the services and closed before them; the tools its Open returns replace the declared ones.
func TestOpenWalksTheCapabilities(t *testing.T) {
	var opened, closed bool
	echo := tools.Typed(tools.TypedTool[struct{}]{Name: "demo_echo", Description: "Echo",
		Run: func(context.Context, struct{}, func(tools.Progress)) (tools.Result, error) {
			return tools.Result{Content: "hi"}, nil
		}})
	later := echo
	later.Name = "demo_later"
	demo := capability.Capability{
		Name: "demo", Label: "chat:tools.namespace.demo", Icon: "tool", Instruction: "Use demo tools sparingly.",
		Tools:    []tools.Entry{echo},
		Settings: []settings.Spec{{Key: "demo.level", Type: settings.Int, Default: 3, Section: "general"}},
		Secrets:  []string{"demo.apiKey"},
		Open: func(_ context.Context, env capability.Env) (capability.Opened, error) {
			opened = env.DB != nil && env.Settings != nil && env.Secrets != nil
			if err := env.Replace("other", nil); err == nil {
				return capability.Opened{}, errors.New("replaced a namespace that is not its own")
			}
			return capability.Opened{Tools: []tools.Entry{later}, Close: func() error { closed = true; return nil }}, nil
		},
	}
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file", Capabilities: capability.List{demo}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !opened {
		t.Fatal("Open was not called with the services")
	}
	if n := s.Settings.Int(ctx, "demo.level"); n != 3 {
		t.Fatalf("demo.level = %d, want its default 3", n)
	}
	if err := s.Secrets.SetKnown(ctx, "demo.apiKey", "demo-key-123456"); err != nil {
		t.Fatal(err)
	}
	on := tools.Scope{Toolsets: []string{"demo"}, Model: tools.ModelCaps{SupportsTools: true, ContextWindow: 100000}}
	sel, err := s.Pipeline.Select(ctx, on)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, d := range sel.Tools {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "demo_later") || slices.Contains(names, "demo_echo") || sel.Instructions == "" {
		t.Fatalf("with the toolset on: tools %v, instructions %q", names, sel.Instructions)
	}
	off, _ := s.Pipeline.Select(ctx, tools.Scope{Model: on.Model})
	for _, d := range off.Tools {
		if d.Name == "demo_later" {
			t.Fatal("a capability's tool is offered to a session without its toolset")
		}
	}
	if err := s.Close(); err != nil || !closed {
		t.Fatalf("close: %v, capability closed %v", err, closed)
	}
}

// The kb capability opens on the services: its tools are selected where the toolset is
// on, its instruction names the KBs, and a command gets the running service.
func TestKBCapabilityOpens(t *testing.T) {
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var c capability.Capability
	for _, x := range s.Capabilities {
		if x.Name == kb.Name {
			c = x
		}
	}
	svc, ok := s.CapabilityEnv(c).Opened.(*kb.Service)
	if !ok || svc != s.Opened(kb.Name) {
		t.Fatalf("the kb service is not reachable: %T", s.CapabilityEnv(c).Opened)
	}
	if _, err := svc.Create(ctx, kb.CreateInput{Name: "手册"}); err != nil {
		t.Fatal(err)
	}
	on := tools.Scope{Toolsets: []string{kb.Name}, Model: tools.ModelCaps{SupportsTools: true, ContextWindow: 100000}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sel, err := s.Pipeline.Select(ctx, on)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range sel.Tools {
			names = append(names, d.Name)
		}
		if slices.Contains(names, "kb_search") && slices.Contains(names, "kb_read_chunks") && strings.Contains(sel.Instructions, `"手册"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tools %v, instructions %q", names, sel.Instructions)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
