package llm

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/secrets"
	"github.com/cairn-app/cairn/backend/store"
)

type env struct {
	dir string
	db  *store.DB
	bus *events.Bus
	sec *secrets.Store
	svc *Service
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	bus := events.NewBus()
	sec := secrets.Open(ctx, dir, db, bus, secrets.Options{Force: secrets.BackendFile})
	hc := NewHTTPClient()
	t.Cleanup(hc.CloseIdleConnections)
	return &env{dir: dir, db: db, bus: bus, sec: sec, svc: NewService(db, sec, bus, Options{HTTPClient: hc, Retry: &RetryPolicy{}})}
}

func TestProviderCRUDKeepsKeyOutOfTheDatabase(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	sub := e.bus.Subscribe(64)
	defer sub.Close()
	const key = "sk-very-secret-key-1234567890-abcd"
	p, err := e.svc.Save(ctx, ProviderInput{Name: "DeepSeek", Preset: "deepseek", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if p.BaseURL != "https://api.deepseek.com/v1" || !p.KeySet || p.KeyLast4 != "abcd" || !p.NeedsKey || len(p.Models) == 0 || p.DefaultModel != "deepseek-chat" {
		t.Fatalf("provider = %+v", p)
	}
	ev := <-sub.C
	if ev.Topic != events.TopicSettings {
		// the secret store announces first; the provider list follows
		t.Fatalf("event %+v", ev)
	}
	found := false
	for i := 0; i < 3 && !found; i++ {
		found = ev.Type == EventProvidersChanged
		if !found {
			ev = <-sub.C
		}
	}
	if !found || bytes.Contains(ev.Data, []byte(key)) {
		t.Fatalf("providers:changed missing or leaking the key: %s", ev.Data)
	}

	// Duplicate names are refused, case-insensitively.
	if _, err := e.svc.Save(ctx, ProviderInput{Name: "deepseek", BaseURL: "http://x"}); !apperr.Is(err, apperr.ProviderExists) {
		t.Fatalf("duplicate: %v", err)
	}
	// Update keeps the key and models when they are not sent.
	p2, err := e.svc.Save(ctx, ProviderInput{ID: p.ID, Name: "DeepSeek main", Preset: "deepseek"})
	if err != nil {
		t.Fatal(err)
	}
	if !p2.KeySet || len(p2.Models) != len(p.Models) || p2.CreatedAt != p.CreatedAt {
		t.Fatalf("update lost data: %+v", p2)
	}
	got, err := e.svc.Get(ctx, "deepseek MAIN")
	if err != nil || got.ID != p.ID {
		t.Fatalf("get by name: %+v %v", got, err)
	}
	list, err := e.svc.List(ctx)
	if err != nil || len(list.Providers) != 1 {
		t.Fatalf("list: %+v %v", list, err)
	}

	// The key is in the secret store and nowhere in the database files.
	v, ok, err := e.sec.Get(SecretName(p.ID))
	if err != nil || !ok || v != key {
		t.Fatalf("secret store: %q %v %v", v, ok, err)
	}
	assertNotInDir(t, e.dir, key, secrets.FileName)

	if err := e.svc.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := e.sec.Get(SecretName(p.ID)); ok {
		t.Fatal("key left behind after delete")
	}
	if _, err := e.svc.Get(ctx, p.ID); !apperr.Is(err, apperr.ProviderNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

// assertNotInDir scans every file of dir (the SQLite database and its WAL) for secret.
func assertNotInDir(t *testing.T, dir, secret string, except ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		skip := false
		for _, x := range except {
			skip = skip || en.Name() == x
		}
		if skip || en.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("%s contains the API key", en.Name())
		}
	}
}

func TestSaveValidation(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	tests := []struct {
		name string
		in   ProviderInput
	}{
		{"empty name", ProviderInput{Name: " ", BaseURL: "http://localhost:1/v1"}},
		{"custom without URL", ProviderInput{Name: "x"}},
		{"not http", ProviderInput{Name: "x", BaseURL: "ftp://host/v1"}},
		{"key in URL", ProviderInput{Name: "x", BaseURL: "https://user:sk@host/v1"}},
		{"unknown preset", ProviderInput{Name: "x", Preset: "nope", BaseURL: "http://h/v1"}},
		{"negative context", ProviderInput{Name: "x", BaseURL: "http://h/v1", Models: []Model{{ID: "m", ContextWindow: -1}}}},
	}
	for _, tt := range tests {
		if _, err := e.svc.Save(ctx, tt.in); !apperr.Is(err, apperr.ProviderInvalid) {
			t.Errorf("%s: err = %v, want provider_invalid", tt.name, err)
		}
	}
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Local", BaseURL: " http://127.0.0.1:8080/v1/chat/completions/ ", DefaultModel: "qwen3:8b"})
	if err != nil {
		t.Fatal(err)
	}
	if p.BaseURL != "http://127.0.0.1:8080/v1" || p.DefaultModel != "qwen3:8b" || len(p.Models) != 1 || p.Models[0].Source != SourceManual {
		t.Fatalf("provider = %+v", p)
	}
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	if _, err := e.svc.Resolve(ctx, "", ""); !apperr.Is(err, apperr.NoProvider) {
		t.Fatalf("no providers: %v", err)
	}
	if _, err := e.svc.Save(ctx, ProviderInput{Name: "OpenAI", Preset: "openai"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Resolve(ctx, "", ""); !apperr.Is(err, apperr.ProviderKeyMissing) {
		t.Fatalf("no key: %v", err)
	}
	if _, err := e.svc.Save(ctx, ProviderInput{Name: "Ollama", Preset: "ollama", Models: []Model{{ID: "llama3.1:8b", SupportsTools: true}}}); err != nil {
		t.Fatal(err)
	}
	tg, err := e.svc.Resolve(ctx, "ollama", "")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Model.ID != "llama3.1:8b" || !tg.Model.SupportsTools || tg.Provider.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Fatalf("target = %+v", tg)
	}
	tg, err = e.svc.Resolve(ctx, "ollama", "some-typed-model")
	if err != nil || tg.Model.ID != "some-typed-model" || tg.Model.Source != SourceManual {
		t.Fatalf("typed model: %+v %v", tg.Model, err)
	}
	if _, err := e.svc.Resolve(ctx, "missing", ""); !apperr.Is(err, apperr.ProviderNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestFetchModelsMerges(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	srv := llmtest.Start(t, llmtest.WithAPIKey("sk-fetch-key-000000"), llmtest.WithModels(
		llmtest.Model{ID: "gpt-4o", ContextLength: 128000, SupportedParameters: []string{"tools"}},
		llmtest.Model{ID: "text-only", ContextLength: 4096, SupportedParameters: []string{"temperature"}},
		llmtest.Model{ID: "mine", ContextLength: 9999},
	))
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-fetch-key-000000",
		Models: []Model{{ID: "mine", SupportsTools: false, Vision: true, Source: SourceManual}, {ID: "gone", Source: SourceFetched}, {ID: "handmade", Source: SourceManual}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err = e.svc.FetchModels(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Model{}
	var order []string
	for _, m := range p.Models {
		byID[m.ID] = m
		order = append(order, m.ID)
	}
	if _, ok := byID["gone"]; ok {
		t.Fatalf("a fetched model the provider dropped is kept: %v", order)
	}
	if m := byID["mine"]; m.SupportsTools || !m.Vision || m.ContextWindow != 9999 {
		t.Fatalf("user's edits lost or context not filled: %+v", m)
	}
	if _, ok := byID["handmade"]; !ok {
		t.Fatalf("manual model dropped: %v", order)
	}
	if m := byID["gpt-4o"]; !m.SupportsTools || m.ContextWindow != 128000 || m.Source != SourceFetched || !m.Vision {
		t.Fatalf("gpt-4o = %+v", m)
	}
	if m := byID["text-only"]; m.SupportsTools {
		t.Fatalf("supported_parameters without tools must mean no tools: %+v", m)
	}

	// A wrong key gives the auth error.
	if _, err := e.svc.Save(ctx, ProviderInput{ID: p.ID, Name: "Fake", BaseURL: srv.URL, APIKey: "sk-wrong-key-111111"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.FetchModels(ctx, p.ID); !apperr.Is(err, apperr.ModelAuthFailed) {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestProviderTest(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	srv := llmtest.Start(t, llmtest.WithAPIKey("sk-good-key-222222"))
	srv.Enqueue(llmtest.Reply{Text: "OK", Delay: 5 * time.Millisecond})
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Fake", BaseURL: srv.URL, APIKey: "sk-good-key-222222", DefaultModel: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Test(ctx, p.ID, "")
	if err != nil || !res.OK || res.Model != "fake-model" || res.Reply == "" || res.Error != nil {
		t.Fatalf("test = %+v, %v", res, err)
	}
	if _, err := e.svc.Save(ctx, ProviderInput{ID: p.ID, Name: "Fake", BaseURL: srv.URL, APIKey: "sk-bad-key-3333333"}); err != nil {
		t.Fatal(err)
	}
	res, err = e.svc.Test(ctx, p.ID, "")
	if err != nil || res.OK || res.Error == nil || res.Error.Code != apperr.ModelAuthFailed {
		t.Fatalf("bad key test = %+v, %v", res, err)
	}
	if _, err := e.svc.Test(ctx, "nope", ""); !apperr.Is(err, apperr.ProviderNotFound) {
		t.Fatalf("unknown provider: %v", err)
	}
}

func TestGuessModel(t *testing.T) {
	tests := []struct {
		id                       string
		tools, vision, reasoning bool
		minContext               int
	}{
		{"gpt-4o-mini", true, true, false, 128000},
		{"deepseek-reasoner", true, false, true, 131072},
		{"text-embedding-3-small", false, false, false, 0},
		{"qwen-vl-max", true, true, false, 1},
		{"some-unknown-model", true, false, false, 0},
		{"gpt-5-mini", true, true, true, 400000},
		{"meta-llama/llama-3.3-70b-instruct", true, false, false, 131072},
		{"gemma3:27b", true, true, false, 131072},
	}
	for _, tt := range tests {
		m := GuessModel(tt.id)
		if m.SupportsTools != tt.tools || m.Vision != tt.vision || m.Reasoning != tt.reasoning || m.ContextWindow < tt.minContext {
			t.Errorf("%s: %+v", tt.id, m)
		}
	}
	for _, p := range Presets() {
		if p.ID != PresetCustom {
			if _, err := NormalizeBaseURL(p.BaseURL); err != nil {
				t.Errorf("preset %s has a bad URL: %v", p.ID, err)
			}
		}
	}
}

// TestFetchedContextWindows: each provider's field for the window is read from its
// /models answer; a model whose answer names none keeps the known-model guess.
func TestFetchedContextWindows(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	srv := llmtest.Start(t, llmtest.WithModels(
		llmtest.Model{ID: "openrouter-style", ContextLength: 200000},
		llmtest.Model{ID: "openrouter-top", TopProvider: &llmtest.TopProvider{ContextLength: 65536}},
		llmtest.Model{ID: "groq-style", ContextWindow: 131072},
		llmtest.Model{ID: "mistral-style", MaxContextLength: 32000},
		llmtest.Model{ID: "vllm-style", MaxModelLen: 40960},
		llmtest.Model{ID: "claude-sonnet-4"},
		llmtest.Model{ID: "nameless"},
	))
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Fake", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if p, err = e.svc.FetchModels(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"openrouter-style": 200000, "openrouter-top": 65536, "groq-style": 131072,
		"mistral-style": 32000, "vllm-style": 40960, "claude-sonnet-4": 200000, "nameless": 0}
	for _, m := range p.Models {
		if w, ok := want[m.ID]; !ok || m.ContextWindow != w {
			t.Errorf("%s: window %d, want %d", m.ID, m.ContextWindow, w)
		}
		delete(want, m.ID)
	}
	if len(want) != 0 {
		t.Errorf("models not listed: %v", want)
	}
}
