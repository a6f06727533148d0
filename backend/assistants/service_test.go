package assistants

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/store"
)

type toolsets []string

func (t toolsets) Choosable() []string { return t }

type providers map[string]string // name → id

func (p providers) Get(_ context.Context, ref string) (llm.Provider, error) {
	for name, id := range p {
		if ref == id || strings.EqualFold(ref, name) {
			return llm.Provider{ID: id, Name: name}, nil
		}
	}
	return llm.Provider{}, apperr.New(apperr.ProviderNotFound, "no provider").WithParam("name", ref)
}

type names []string

func (n names) Exists(_ context.Context, v string) (bool, error) { return slices.Contains(n, v), nil }
func (n names) Attach(context.Context, string, []string) error   { return nil }
func (n names) TurnOn(context.Context, string, string) error     { return nil }

type noSessions struct{}

func (noSessions) CreateSession(context.Context, chat.SessionInput) (chat.Session, error) {
	return chat.Session{}, apperr.New(apperr.Internal, "not in this test")
}
func (noSessions) DeleteSession(context.Context, string) error { return nil }

func newService(t *testing.T) (*Service, *events.Bus) {
	t.Helper()
	db, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	bus := events.NewBus()
	t.Cleanup(bus.Close)
	return New(Config{DB: db.DB, Bus: bus, Sessions: noSessions{}, Toolsets: toolsets{"file", "kb", "mcp", "skill", "web"},
		Providers: providers{"Local": "p1"}, KBs: names{"kb1"}, Skills: names{"tone"}}), bus
}

func ptr(v float64) *float64 { return &v }

func TestSaveListAndDelete(t *testing.T) {
	s, bus := newService(t)
	ctx := context.Background()
	sub := bus.Subscribe(16)
	defer sub.Close()
	a, err := s.Save(ctx, "", Input{Name: "  Poet\n ", Icon: "🎨", Description: "Writes verse", Instructions: "Rhyme.",
		ProviderID: "local", Model: " m ", Temperature: ptr(1.2), TopP: ptr(0.9), MaxTokens: 100, ContextMessages: 6,
		Toolsets: []string{"web", "web", "file"}, KBs: []string{"kb1"}, Skills: []string{"tone"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Assistant{ID: a.ID, Name: "Poet", Icon: "🎨", Description: "Writes verse", Instructions: "Rhyme.", ProviderID: "p1", Model: "m",
		Temperature: ptr(1.2), TopP: ptr(0.9), MaxTokens: 100, ContextMessages: 6, Toolsets: []string{"file", "web"},
		KBs: []string{"kb1"}, Skills: []string{"tone"}, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	got, _ := json.Marshal(a)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Fatalf("saved\n %s\nwant\n %s", got, wantJSON)
	}
	ev := <-sub.C
	if ev.Topic != Topic || ev.Type != TypeChanged || !strings.Contains(string(ev.Data), `"Poet"`) {
		t.Fatalf("event = %s %s %s", ev.Topic, ev.Type, ev.Data)
	}

	a2, err := s.Save(ctx, a.ID, Input{Name: "Poet", Icon: "🎨", Instructions: "Free verse.", Temperature: nil})
	if err != nil {
		t.Fatal(err)
	}
	if a2.ID != a.ID || a2.Instructions != "Free verse." || a2.Temperature != nil || len(a2.Toolsets) != 0 || a2.CreatedAt != a.CreatedAt {
		t.Fatalf("updated = %+v", a2)
	}
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, x := range list.Assistants {
		ids = append(ids, x.ID)
	}
	if !slices.Equal(ids, []string{BuiltinTranslator, BuiltinWriter, BuiltinCodeReviewer, BuiltinResearcher, a.ID}) {
		t.Fatalf("list = %v", ids)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, a.ID); !apperr.Is(err, apperr.AssistantNotFound) {
		t.Fatalf("deleted assistant found: %v", err)
	}
	if err := s.Delete(ctx, a.ID); !apperr.Is(err, apperr.AssistantNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestSaveRefusesBadInput(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	if _, err := s.Save(ctx, "", Input{Name: "Taken", Icon: "🤖"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   Input
		code apperr.Code
	}{
		{"no name", Input{Name: " \t "}, apperr.AssistantNameRequired},
		{"long name", Input{Name: strings.Repeat("n", MaxName+1)}, apperr.AssistantTooLong},
		{"taken name", Input{Name: "taken"}, apperr.AssistantNameTaken},
		{"a built-in's name", Input{Name: "translator"}, apperr.AssistantNameTaken},
		{"unknown icon", Input{Name: "A", Icon: "X"}, apperr.AssistantIconUnknown},
		{"long instructions", Input{Name: "A", Instructions: strings.Repeat("i", MaxInstructions+1)}, apperr.AssistantTooLong},
		{"temperature", Input{Name: "A", Temperature: ptr(2.1)}, apperr.AssistantParamRange},
		{"top-p", Input{Name: "A", TopP: ptr(-0.1)}, apperr.AssistantParamRange},
		{"max tokens", Input{Name: "A", MaxTokens: -1}, apperr.AssistantParamRange},
		{"history", Input{Name: "A", ContextMessages: 10_001}, apperr.AssistantParamRange},
		{"toolset", Input{Name: "A", Toolsets: []string{"nope"}}, apperr.AssistantToolsetUnknown},
		{"provider", Input{Name: "A", ProviderID: "gone"}, apperr.ProviderNotFound},
		{"kb", Input{Name: "A", KBs: []string{"kb2"}}, apperr.KBNotFound},
		{"skill", Input{Name: "A", Skills: []string{"other"}}, apperr.SkillNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := s.Save(ctx, "", c.in); !apperr.Is(err, c.code) {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
		})
	}
	list, _ := s.List(ctx)
	if n := len(list.Assistants); n != len(builtins())+1 {
		t.Fatalf("%d assistants after refusals, want the built-ins and one", n)
	}
}

func TestBuiltinsAreCopiedAndHiddenNotChanged(t *testing.T) {
	s, _ := newService(t)
	ctx := context.Background()
	tr, err := s.Get(ctx, BuiltinTranslator)
	if err != nil || !tr.Builtin || tr.Instructions == "" || tr.Temperature == nil {
		t.Fatalf("translator = %+v, %v", tr, err)
	}
	if _, err := s.Save(ctx, BuiltinTranslator, Input{Name: "Mine"}); !apperr.Is(err, apperr.AssistantBuiltin) {
		t.Fatalf("built-in changed: %v", err)
	}
	if err := s.Delete(ctx, BuiltinTranslator); !apperr.Is(err, apperr.AssistantBuiltin) {
		t.Fatalf("built-in deleted: %v", err)
	}
	c1, err := s.Copy(ctx, BuiltinTranslator)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := s.Copy(ctx, BuiltinTranslator)
	if err != nil {
		t.Fatal(err)
	}
	if c1.Builtin || c1.Name != "Translator (copy)" || c2.Name != "Translator (copy 2)" || c1.Instructions != tr.Instructions || *c1.Temperature != *tr.Temperature {
		t.Fatalf("copies = %+v / %+v", c1, c2)
	}
	h, err := s.SetHidden(ctx, BuiltinTranslator, true)
	if err != nil || !h.Hidden {
		t.Fatalf("hide = %+v, %v", h, err)
	}
	if got, _ := s.Get(ctx, BuiltinTranslator); !got.Hidden {
		t.Fatal("hidden is not kept")
	}
	if _, err := s.SetHidden(ctx, BuiltinTranslator, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, BuiltinTranslator); got.Hidden {
		t.Fatal("shown again is not kept")
	}
	if _, err := s.SetHidden(ctx, "nope", true); !apperr.Is(err, apperr.AssistantNotFound) {
		t.Fatalf("hide unknown: %v", err)
	}
}

// TestBuiltinsAreComplete: every built-in has an allowed icon, instructions, a name no
// other has, and only toolsets Cairn has (a build without one leaves it out).
func TestBuiltinsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range builtins() {
		if b.ID == "" || b.Name == "" || b.Description == "" || len(b.Instructions) < 200 || !slices.Contains(Icons(), b.Icon) {
			t.Errorf("built-in %q is incomplete", b.ID)
		}
		if seen[strings.ToLower(b.Name)] {
			t.Errorf("two built-ins are called %s", b.Name)
		}
		seen[strings.ToLower(b.Name)] = true
	}
	s, _ := newService(t)
	s.cfg.Toolsets = toolsets{"mcp"}
	r, err := s.Get(context.Background(), BuiltinResearcher)
	if err != nil || len(r.Toolsets) != 0 {
		t.Fatalf("researcher without web = %+v, %v", r.Toolsets, err)
	}
}
