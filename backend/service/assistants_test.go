package service

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/assistants"
	"github.com/cairn-app/cairn/backend/kb"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/skills"
)

// TestStartFromAssistantAppliesEverything: a conversation started from an assistant has
// its instructions, model and parameters, toolsets, knowledge bases and skills, and the
// model's request carries them; a deleted knowledge base is left out and reported.
func TestStartFromAssistantAppliesEverything(t *testing.T) {
	dir := t.TempDir()
	skillDir := filepath.Join(dir, "skills", "tone")
	if err := os.MkdirAll(skillDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte("---\nname: tone\ndescription: Keep a friendly tone.\n---\nBe friendly.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Options{DataDir: dir, SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	srv := llmtest.Start(t)
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-test-000000",
		Models: []llm.Model{{ID: "m1", SupportsTools: true, ContextWindow: 32000}, {ID: "m2", SupportsTools: true, ContextWindow: 32000}}})
	if err != nil {
		t.Fatal(err)
	}
	kbs := s.Opened(kb.Name).(*kb.Service)
	docs, err := kbs.Create(ctx, kb.CreateInput{Name: "Docs"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := kbs.Create(ctx, kb.CreateInput{Name: "Gone"})
	if err != nil {
		t.Fatal(err)
	}
	sk := s.Opened(skills.Name).(*skills.Service)
	sk.Rescan(ctx)
	if _, err := sk.SetEnabled(ctx, "tone", false); err != nil {
		t.Fatal(err)
	}
	temp, topP := 0.4, 0.8
	a, err := s.Assistants.Save(ctx, "", assistants.Input{Name: "Helper", Icon: "💡", Instructions: "You are Helper.",
		ProviderID: "Fake", Model: "m2", Temperature: &temp, TopP: &topP, MaxTokens: 321, ContextMessages: 4,
		Toolsets: []string{"web"}, KBs: []string{docs.ID, gone.ID}, Skills: []string{"tone"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.ProviderID != p.ID {
		t.Fatalf("provider stored as %q, want the id %q", a.ProviderID, p.ID)
	}
	if err := kbs.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}

	st, err := s.Assistants.Start(ctx, "helper") // by name, as `cairn chat --assistant` does
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.MissingKBs, []string{gone.ID}) || len(st.MissingSkills) != 0 {
		t.Fatalf("missing = %v / %v, want the deleted KB only", st.MissingKBs, st.MissingSkills)
	}
	snap, err := s.Chat.GetSession(ctx, st.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	got := snap.Session
	if got.SystemPrompt != "You are Helper." || got.ProviderID != p.ID || got.Model != "m2" || *got.Temperature != temp ||
		*got.TopP != topP || got.MaxTokens != 321 || got.ContextMessages != 4 {
		t.Fatalf("session = %+v", got)
	}
	if !slices.Equal(got.Toolsets, []string{"kb", "skill", "web"}) {
		t.Fatalf("toolsets = %v, want web plus kb and skill for what it attaches", got.Toolsets)
	}
	if ids, _ := kbs.SessionKBs(ctx, st.SessionID); !slices.Equal(ids, []string{docs.ID}) {
		t.Fatalf("attached KBs = %v", ids)
	}
	ss, err := sk.SessionSkills(ctx, st.SessionID)
	if err != nil || len(ss) != 1 || !ss[0].Enabled || !ss[0].Own {
		t.Fatalf("session skills = %+v, %v; want tone on by the conversation's choice", ss, err)
	}
	link, err := s.Assistants.SessionAssistant(ctx, st.SessionID)
	if err != nil || link == nil || link.AssistantID != a.ID || link.Name != "Helper" || link.Icon != "💡" {
		t.Fatalf("link = %+v, %v", link, err)
	}

	srv.Enqueue(llmtest.Reply{Text: "hi"})
	if _, err := s.Chat.Send(ctx, st.SessionID, "hello", nil); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, s, st.SessionID)
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := reqs[0].Body
	if body.Model != "m2" || body.Temperature == nil || *body.Temperature != temp || body.TopP == nil || *body.TopP != topP || body.MaxTokens != 321 {
		t.Fatalf("request = model %s, temperature %v, top_p %v, max_tokens %d", body.Model, body.Temperature, body.TopP, body.MaxTokens)
	}
	if sys := body.Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "You are Helper.") {
		t.Fatalf("first message = %+v", sys)
	}

	// Deleted, the assistant is still named in the conversations it started.
	if err := s.Assistants.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	link, err = s.Assistants.SessionAssistant(ctx, st.SessionID)
	if err != nil || link == nil || !link.Deleted || link.Name != "Helper" {
		t.Fatalf("link after delete = %+v, %v", link, err)
	}
	// A conversation deleted takes its link along.
	if err := s.Chat.DeleteSession(ctx, st.SessionID); err != nil {
		t.Fatal(err)
	}
	if link, err := s.Assistants.SessionAssistant(ctx, st.SessionID); err != nil || link != nil {
		t.Fatalf("link of a deleted conversation = %+v, %v", link, err)
	}
}

// TestStartFromBuiltinAndRefusals: a built-in assistant starts a conversation with its
// instructions and toolsets; one whose provider was deleted fails before any session is
// made; a KB that does not exist cannot be saved into an assistant.
func TestStartFromBuiltinAndRefusals(t *testing.T) {
	s, err := Open(context.Background(), Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	st, err := s.Assistants.Start(ctx, assistants.BuiltinResearcher)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Chat.GetSession(ctx, st.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap.Session.SystemPrompt, "Search the web") || !slices.Contains(snap.Session.Toolsets, "web") {
		t.Fatalf("researcher session = %+v", snap.Session)
	}
	if link, _ := s.Assistants.SessionAssistant(ctx, st.SessionID); link == nil || !link.Builtin || link.Name != "Researcher" {
		t.Fatalf("link = %+v", link)
	}

	if _, err := s.Assistants.Save(ctx, "", assistants.Input{Name: "X", KBs: []string{"nope"}}); !apperr.Is(err, apperr.KBNotFound) {
		t.Fatalf("unknown KB saved: %v", err)
	}
	if _, err := s.Assistants.Save(ctx, "", assistants.Input{Name: "X", Skills: []string{"nope"}}); !apperr.Is(err, apperr.SkillNotFound) {
		t.Fatalf("unknown skill saved: %v", err)
	}
	p, err := s.Providers.Save(ctx, llm.ProviderInput{Name: "Temp", BaseURL: "http://127.0.0.1:9/v1", Models: []llm.Model{{ID: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Assistants.Save(ctx, "", assistants.Input{Name: "Orphan", ProviderID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Providers.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Chat.ListSessions(ctx, "")
	if _, err := s.Assistants.Start(ctx, a.ID); !apperr.Is(err, apperr.ProviderNotFound) {
		t.Fatalf("start with a deleted provider: %v", err)
	}
	after, _ := s.Chat.ListSessions(ctx, "")
	if len(after.Sessions) != len(before.Sessions) {
		t.Fatalf("sessions %d → %d: a failed start left one", len(before.Sessions), len(after.Sessions))
	}
}
