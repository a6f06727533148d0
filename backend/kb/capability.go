package kb

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cairn-app/cairn/backend/capability"
	"github.com/cairn-app/cairn/backend/llm"
)

// Name is the toolset and the namespace of its tools.
const Name = "kb"

// Capability declares the toolset: its name, label and icon, the four tools, their
// instruction (refreshed as KBs and files change) and `cairn kb`. A session with the
// toolset on searches the KBs it attached (all when it attached none).
func Capability() capability.Capability {
	return capability.Capability{
		Name:     Name,
		Label:    "chat:tools.namespace.kb",
		Icon:     "book",
		Section:  "knowledge",
		Secrets:  []string{"embeddings.apiKey"},
		Commands: []capability.Command{command()},
		Open:     open,
	}
}

// OpenEnv starts the KB service on a data directory's services: embeddings go to the
// user's providers (their base URL and key) on the OpenAI embeddings wire.
func OpenEnv(ctx context.Context, env capability.Env) (*Service, error) {
	embedders, rerankers := providerModels(env)
	return New(ctx, Config{DataDir: env.DataDir, Store: NewSQLStore(env.DB.DB), Bus: env.Bus, Log: env.Log,
		Embedders: embedders, Rerankers: rerankers})
}

func open(ctx context.Context, env capability.Env) (capability.Opened, error) {
	svc, err := OpenEnv(ctx, env)
	if err != nil {
		return capability.Opened{}, err
	}
	r := &refresher{svc: svc, env: env}
	svc.cfg.OnChange = r.soon
	return capability.Opened{Tools: svc.Tools(svc.Catalog(ctx)), Value: svc, Close: func() error {
		r.stop()
		return svc.Close()
	}}, nil
}

// refresher re-registers the tools with a fresh instruction a moment after KBs or files
// change, once for a burst of changes.
type refresher struct {
	svc    *Service
	env    capability.Env
	mu     sync.Mutex
	timer  *time.Timer
	closed bool
}

func (r *refresher) soon() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.timer != nil || r.env.Replace == nil {
		return
	}
	r.timer = time.AfterFunc(time.Second, func() {
		r.mu.Lock()
		r.timer = nil
		closed := r.closed
		r.mu.Unlock()
		if !closed {
			_ = r.env.Replace(Name, r.svc.Tools(r.svc.Catalog(context.Background())))
		}
	})
}

func (r *refresher) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
	}
}

// providerModels resolves "PROVIDER/MODEL" through Cairn's providers, for embeddings
// (POST {base}/embeddings) and reranking (POST {base}/rerank). The key is read only after
// the provider service agreed it may go to the provider's base URL.
func providerModels(env capability.Env) (EmbedderFor, RerankerFor) {
	if env.DB == nil || env.Secrets == nil {
		return nil, nil
	}
	providers := llm.NewService(env.DB, readOnlySecrets{env.Secrets}, env.Bus, llm.Options{})
	endpoint := func(ctx context.Context, provider, model string) (string, string, error) {
		t, err := providers.Resolve(ctx, provider, model)
		if err != nil {
			return "", "", err
		}
		key, _, err := env.Secrets.Get(llm.SecretName(t.Provider.ID))
		return t.Provider.BaseURL, key, err
	}
	embed := func(ctx context.Context, provider, model string) (Embedder, error) {
		base, key, err := endpoint(ctx, provider, model)
		if err != nil {
			return nil, err
		}
		return &OpenAIEmbedder{HTTP: providers.HTTPClient(), BaseURL: base, Key: key, Model: model}, nil
	}
	rerank := func(ctx context.Context, provider, model string) (Reranker, error) {
		base, key, err := endpoint(ctx, provider, model)
		if err != nil {
			return nil, err
		}
		return &HTTPReranker{HTTP: providers.HTTPClient(), BaseURL: base, Key: key, Model: model}, nil
	}
	return embed, rerank
}

// readOnlySecrets lets the provider service read keys; KBs never change them.
type readOnlySecrets struct{ capability.Secrets }

func (readOnlySecrets) Set(context.Context, string, string) error {
	return errors.New("knowledge bases do not store keys")
}
func (readOnlySecrets) Delete(context.Context, string) error {
	return errors.New("knowledge bases do not delete keys")
}
