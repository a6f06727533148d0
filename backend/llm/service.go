package llm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/store"
)

// EventProvidersChanged is published on events.TopicSettings with a ProvidersSnapshot
// whenever a provider is added, changed or removed.
const EventProvidersChanged = "providers:changed"

// SecretStore is the part of the secret store providers need (*secrets.Store).
type SecretStore interface {
	Get(name string) (string, bool, error)
	Set(ctx context.Context, name, value string) error
	Delete(ctx context.Context, name string) error
}

// Options tune a Service; zero values are the defaults.
type Options struct {
	HTTPClient *http.Client  // default NewHTTPClient()
	Retry      *RetryPolicy  // default DefaultRetry
	KeyTTL     time.Duration // how long a key read from the secret store is reused (30 s)
}

// Service is the provider list and the way to a model client.
type Service struct {
	db      *store.DB
	secrets SecretStore
	bus     *events.Bus
	http    *http.Client
	retry   RetryPolicy
	keyTTL  time.Duration

	mu      sync.Mutex
	keys    map[string]cachedKey
	proxied map[string]*http.Client // by proxy choice (httpFor)
}

type cachedKey struct {
	value string
	ok    bool
	at    time.Time
}

// NewService returns the provider service.
func NewService(db *store.DB, sec SecretStore, bus *events.Bus, opt Options) *Service {
	s := &Service{db: db, secrets: sec, bus: bus, http: opt.HTTPClient, retry: DefaultRetry, keyTTL: opt.KeyTTL, keys: map[string]cachedKey{},
		proxied: map[string]*http.Client{}}
	if s.http == nil {
		s.http = NewHTTPClient()
	}
	if opt.Retry != nil {
		s.retry = *opt.Retry
	}
	if s.keyTTL == 0 {
		s.keyTTL = 30 * time.Second
	}
	return s
}

// HTTPClient is the client every provider call goes through.
func (s *Service) HTTPClient() *http.Client { return s.http }

// ProvidersSnapshot is the provider list stamped with the settings topic's seq.
type ProvidersSnapshot struct {
	Seq       uint64     `json:"seq"`
	Providers []Provider `json:"providers"`
}

const providerCols = "id, name, preset, base_url, models, default_model, headers, proxy, created_at, updated_at"

func scanProvider(sc interface{ Scan(...any) error }) (Provider, error) {
	var p Provider
	var models, headers string
	if err := sc.Scan(&p.ID, &p.Name, &p.Preset, &p.BaseURL, &models, &p.DefaultModel, &headers, &p.Proxy, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(headers), &p.Headers); err != nil || p.Headers == nil {
		p.Headers = []Header{}
	}
	if err := json.Unmarshal([]byte(models), &p.Models); err != nil || p.Models == nil {
		p.Models = []Model{}
	}
	if pr, ok := PresetByID(p.Preset); ok {
		p.NeedsKey = pr.NeedsKey
	}
	p.Dialect = DialectFor(p.Preset, p.BaseURL)
	p.ReasoningControls = p.Dialect.Controls()
	return p, nil
}

// List returns every provider in display order with its key status.
func (s *Service) List(ctx context.Context) (ProvidersSnapshot, error) {
	seq := s.bus.Seq(events.TopicSettings)
	rows, err := s.db.QueryContext(ctx, "SELECT "+providerCols+" FROM providers ORDER BY position, created_at, name")
	if err != nil {
		return ProvidersSnapshot{}, apperr.Wrap(err, apperr.Internal, "list providers")
	}
	defer rows.Close()
	out := ProvidersSnapshot{Seq: seq, Providers: []Provider{}}
	for rows.Next() {
		p, err := scanProvider(rows)
		if err != nil {
			return ProvidersSnapshot{}, apperr.Wrap(err, apperr.Internal, "list providers")
		}
		out.Providers = append(out.Providers, p)
	}
	if err := rows.Err(); err != nil {
		return ProvidersSnapshot{}, apperr.Wrap(err, apperr.Internal, "list providers")
	}
	rows.Close()
	for i := range out.Providers {
		s.fillKey(&out.Providers[i])
	}
	if err := s.fillPrices(ctx, out.Providers); err != nil {
		return ProvidersSnapshot{}, err
	}
	return out, nil
}

func (s *Service) fillKey(p *Provider) {
	s.markSetHeaders(p)
	key, ok, err := s.key(p.ID)
	if err == nil && ok {
		p.KeySet = true
		p.KeyLast4 = maskKey(key)
	}
}

func maskKey(v string) string {
	r := []rune(v)
	if len(r) < 8 {
		return ""
	}
	return string(r[len(r)-4:])
}

// Get finds a provider by id or by name (case-insensitive).
func (s *Service) Get(ctx context.Context, ref string) (Provider, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+providerCols+" FROM providers WHERE id = ? OR name = ? COLLATE NOCASE ORDER BY id = ? DESC LIMIT 1", ref, ref, ref)
	p, err := scanProvider(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Provider{}, apperr.New(apperr.ProviderNotFound, "no provider %s", apperr.Quote(ref)).WithParam("name", apperr.Quote(ref))
	}
	if err != nil {
		return Provider{}, apperr.Wrap(err, apperr.Internal, "read provider")
	}
	s.fillKey(&p)
	ps := []Provider{p}
	if err := s.fillPrices(ctx, ps); err != nil {
		return Provider{}, err
	}
	return ps[0], nil
}

func invalid(reason string) *apperr.Error {
	return apperr.New(apperr.ProviderInvalid, "%s", reason).WithParam("reason", reason)
}

// NormalizeBaseURL checks a base URL and trims what users often paste with it.
func NormalizeBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", invalid("the base URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", invalid(apperr.Quote(raw) + " is not an http(s) URL")
	}
	if err := checkPort(u); err != nil {
		return "", err
	}
	if u.User != nil {
		return "", invalid("put the API key in the key field, not in the URL")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.Path = strings.TrimSuffix(u.Path, "/chat/completions")
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

func normalizeModels(in []Model) ([]Model, error) {
	out := make([]Model, 0, len(in))
	seen := map[string]bool{}
	for _, m := range in {
		m.ID = strings.TrimSpace(m.ID)
		if m.ID == "" || seen[m.ID] {
			continue
		}
		if m.ContextWindow < 0 {
			return nil, invalid(fmt.Sprintf("model %s: the context window cannot be negative", apperr.Quote(m.ID)))
		}
		if m.Source == "" {
			m.Source = SourceManual
		}
		m.Price = nil // read from the prices, never stored with the list
		if why := CheckReasoning(m.ReasoningChoice()); why != "" {
			return nil, invalid(fmt.Sprintf("model %s: %s", apperr.Quote(m.ID), why))
		}
		seen[m.ID] = true
		out = append(out, m)
	}
	return out, nil
}

// Save creates (in.ID empty) or updates a provider. A non-empty APIKey goes to the secret
// store, never to SQLite.
func (s *Service) Save(ctx context.Context, in ProviderInput) (Provider, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" || len([]rune(name)) > 64 || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return Provider{}, invalid("the name must be 1 to 64 printable characters")
	}
	if err := CheckKey(strings.TrimSpace(in.APIKey)); err != nil {
		return Provider{}, err
	}
	preset := in.Preset
	if preset == "" {
		preset = PresetCustom
	}
	pr, ok := PresetByID(preset)
	if !ok {
		return Provider{}, invalid("unknown preset " + apperr.Quote(preset))
	}
	rawURL := in.BaseURL
	if strings.TrimSpace(rawURL) == "" {
		rawURL = pr.BaseURL
	}
	baseURL, err := NormalizeBaseURL(rawURL)
	if err != nil {
		return Provider{}, err
	}
	var existing *Provider
	if in.ID != "" {
		p, err := s.Get(ctx, in.ID)
		if err != nil {
			return Provider{}, err
		}
		existing = &p
		if err := checkKeyFollows(p, baseURL, in); err != nil {
			return Provider{}, err
		}
	}
	modelsIn := in.Models
	if modelsIn == nil && existing != nil {
		modelsIn = existing.Models
	}
	if modelsIn == nil && existing == nil {
		modelsIn = pr.Models
	}
	models, err := normalizeModels(modelsIn)
	if err != nil {
		return Provider{}, err
	}
	keepListPrices(models, existing)
	def := strings.TrimSpace(in.DefaultModel)
	if def == "" && existing != nil && in.Models == nil {
		def = existing.DefaultModel
	}
	if def != "" && !hasModel(models, def) {
		m := GuessModel(def)
		m.Source = SourceManual
		models = append(models, m)
	}
	if def == "" && len(models) > 0 {
		def = models[0].ID
	}
	net, err := saveNetwork(in, existing)
	if err != nil {
		return Provider{}, err
	}
	var clash string
	err = s.db.QueryRowContext(ctx, "SELECT id FROM providers WHERE name = ? COLLATE NOCASE AND id <> ?", name, in.ID).Scan(&clash)
	if err == nil {
		return Provider{}, apperr.New(apperr.ProviderExists, "provider %q exists", name).WithParam("name", name)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return Provider{}, apperr.Wrap(err, apperr.Internal, "check provider name")
	}
	modelsJSON, _ := json.Marshal(models)
	now := time.Now().UnixMilli()
	id := in.ID
	if existing == nil {
		id = randomHex(8)
	}
	if key := strings.TrimSpace(in.APIKey); key != "" {
		if err := s.secrets.Set(ctx, SecretName(id), key); err != nil {
			return Provider{}, err
		}
	} else if in.ClearKey {
		if err := s.secrets.Delete(ctx, SecretName(id)); err != nil {
			return Provider{}, err
		}
	}
	s.forgetKey(id)
	if err := s.storeHeaderSecrets(ctx, id, net, existing); err != nil {
		return Provider{}, err
	}
	if existing == nil {
		_, err = s.db.ExecContext(ctx, `INSERT INTO providers(id, name, preset, base_url, models, default_model, headers, proxy, position, created_at, updated_at)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM providers), ?, ?)`,
			id, name, preset, baseURL, string(modelsJSON), def, headersJSON(net.headers), net.proxy, now, now)
	} else {
		_, err = s.db.ExecContext(ctx, `UPDATE providers SET name = ?, preset = ?, base_url = ?, models = ?, default_model = ?, headers = ?, proxy = ?, updated_at = ? WHERE id = ?`,
			name, preset, baseURL, string(modelsJSON), def, headersJSON(net.headers), net.proxy, now, id)
	}
	if err != nil {
		if existing == nil && strings.TrimSpace(in.APIKey) != "" {
			_ = s.secrets.Delete(ctx, SecretName(id))
		}
		if strings.Contains(err.Error(), "UNIQUE") {
			return Provider{}, apperr.New(apperr.ProviderExists, "provider %q exists", name).WithParam("name", name)
		}
		return Provider{}, apperr.Wrap(err, apperr.Internal, "save provider")
	}
	s.publish(ctx)
	return s.Get(ctx, id)
}

// checkKeyFollows refuses to send a stored key to another host without the user's word:
// a base URL moved to another scheme, host or port (a typo, a pasted address, a provider
// that is not the one the key is for) would otherwise get the key with the next request.
// A new key, removing the key, or KeepKey makes the change.
func checkKeyFollows(p Provider, baseURL string, in ProviderInput) error {
	if !p.KeySet || in.KeepKey || in.ClearKey || strings.TrimSpace(in.APIKey) != "" {
		return nil
	}
	from, to := origin(p.BaseURL), origin(baseURL)
	if from == to {
		return nil
	}
	return apperr.New(apperr.ProviderKeyHostMoved, "provider %s: the base URL moved from %s to %s; enter the API key again or keep the stored one explicitly", p.Name, from, to).
		WithParam("name", p.Name).WithParam("from", from).WithParam("to", to)
}

// origin is a URL's scheme, host and port, in lower case and without the scheme's default
// port: what decides where a request, and its key, goes.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	switch {
	case port != "":
		host = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// keepListPrices gives the models the list prices the provider's last fetch stored: a
// window sends back models as it shows them, and only a fetch says what a list price is.
func keepListPrices(models []Model, existing *Provider) {
	for i := range models {
		models[i].ListPrice = nil
		if existing == nil {
			continue
		}
		for _, e := range existing.Models {
			if e.ID == models[i].ID {
				models[i].ListPrice = e.ListPrice
			}
		}
	}
}

func hasModel(ms []Model, id string) bool {
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

// Delete removes a provider and its key. Sessions that used it fall back to the default.
func (s *Service) Delete(ctx context.Context, ref string) error {
	p, err := s.Get(ctx, ref)
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM providers WHERE id = ?", p.ID); err != nil {
		return apperr.Wrap(err, apperr.Internal, "delete provider")
	}
	if err := s.secrets.Delete(ctx, SecretName(p.ID)); err != nil {
		return err
	}
	for _, h := range p.Headers {
		if h.Secret {
			_ = s.secrets.Delete(ctx, HeaderSecretName(p.ID, h.Name))
		}
	}
	s.forgetKey(p.ID)
	s.publish(ctx)
	return nil
}

func (s *Service) publish(ctx context.Context) {
	snap, err := s.List(ctx)
	if err != nil {
		return
	}
	s.bus.Publish(events.TopicSettings, EventProvidersChanged, ProvidersSnapshot{Providers: snap.Providers})
}

// key reads a provider's API key through a short-lived cache: the keyring can take
// milliseconds per read, which would show in time-to-first-token.
func (s *Service) key(providerID string) (string, bool, error) {
	s.mu.Lock()
	c, hit := s.keys[providerID]
	s.mu.Unlock()
	if hit && time.Since(c.at) < s.keyTTL {
		return c.value, c.ok, nil
	}
	v, ok, err := s.secrets.Get(SecretName(providerID))
	if err != nil {
		return "", false, err
	}
	s.mu.Lock()
	s.keys[providerID] = cachedKey{value: v, ok: ok, at: time.Now()}
	s.mu.Unlock()
	return v, ok, nil
}

// requestKey is the key a request to p sends, refused when it cannot be sent.
func (s *Service) requestKey(p Provider) (string, bool, error) {
	key, ok, err := s.key(p.ID)
	if err == nil && ok {
		err = checkStoredKey(p, key)
	}
	return key, ok, err
}

func (s *Service) forgetKey(providerID string) {
	s.mu.Lock()
	delete(s.keys, providerID)
	s.mu.Unlock()
}

// Target is a resolved model: the client to call, its provider and the model's
// capabilities.
type Target struct {
	Client   *Client
	Provider Provider
	Model    Model
}

// Resolve picks the provider (by id or name; "" = the first one) and the model ("" = the
// provider's default) and returns a client for them.
func (s *Service) Resolve(ctx context.Context, providerRef, model string) (Target, error) {
	var p Provider
	var err error
	if providerRef == "" {
		p, err = s.first(ctx)
	} else {
		p, err = s.Get(ctx, providerRef)
	}
	if err != nil {
		return Target{}, err
	}
	if model == "" {
		model = p.DefaultModel
	}
	if model == "" && len(p.Models) > 0 {
		model = p.Models[0].ID
	}
	if model == "" {
		return Target{}, invalid(fmt.Sprintf("provider %s has no model; add one or fetch the list", p.Name)).WithParam("providerId", p.ID)
	}
	key, ok, err := s.requestKey(p)
	if err != nil {
		return Target{}, err
	}
	if !ok && p.NeedsKey {
		return Target{}, apperr.New(apperr.ProviderKeyMissing, "provider %s has no API key", p.Name).WithParam("name", p.Name).WithParam("providerId", p.ID)
	}
	headers, err := s.requestHeaders(p)
	if err != nil {
		return Target{}, err
	}
	c := NewClient(s.httpFor(p.Proxy), p.ID, p.BaseURL, key, s.retry, WithDialect(p.Dialect), WithHeaders(headers))
	return Target{Client: c, Provider: p, Model: p.Model(model)}, nil
}

func (s *Service) first(ctx context.Context) (Provider, error) {
	var id string
	err := s.db.QueryRowContext(ctx, "SELECT id FROM providers ORDER BY position, created_at, name LIMIT 1").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Provider{}, apperr.New(apperr.NoProvider, "no provider configured")
	}
	if err != nil {
		return Provider{}, apperr.Wrap(err, apperr.Internal, "read providers")
	}
	return s.Get(ctx, id)
}

// FetchModels reads GET {baseURL}/models and merges it into the provider's list: models
// the user added by hand and the capabilities they edited are kept; fetched models that
// are gone are dropped.
func (s *Service) FetchModels(ctx context.Context, ref string) (Provider, error) {
	p, err := s.Get(ctx, ref)
	if err != nil {
		return Provider{}, err
	}
	key, _, err := s.requestKey(p)
	if err != nil {
		return Provider{}, err
	}
	fetched, err := s.listModels(ctx, p, key)
	if err != nil {
		return Provider{}, err
	}
	merged := mergeModels(p.Models, fetched)
	def := p.DefaultModel
	if def == "" && len(merged) > 0 {
		def = merged[0].ID
	}
	b, _ := json.Marshal(merged)
	if _, err := s.db.ExecContext(ctx, "UPDATE providers SET models = ?, default_model = ?, updated_at = ? WHERE id = ?",
		string(b), def, time.Now().UnixMilli(), p.ID); err != nil {
		return Provider{}, apperr.Wrap(err, apperr.Internal, "save models")
	}
	s.publish(ctx)
	return s.Get(ctx, p.ID)
}

func mergeModels(have, fetched []Model) []Model {
	got := map[string]Model{}
	for _, m := range fetched {
		got[m.ID] = m
	}
	var out []Model
	kept := map[string]bool{}
	for _, m := range have {
		f, ok := got[m.ID]
		if !ok && m.Source != SourceManual {
			continue // a fetched or preset model the provider no longer lists
		}
		if ok && m.ContextWindow == 0 {
			m.ContextWindow = f.ContextWindow
		}
		if ok {
			m.ListPrice = f.ListPrice
		}
		m.Price = nil
		out = append(out, m)
		kept[m.ID] = true
	}
	for _, m := range fetched {
		if !kept[m.ID] {
			out = append(out, m)
		}
	}
	if out == nil {
		out = []Model{}
	}
	return out
}

// listModels calls GET /models and reads the fields OpenRouter, LM Studio and others add
// (context length, supported parameters, input modalities, OpenRouter's pricing). The
// window is the first of context_length (OpenRouter, Together), context_window (Groq),
// max_context_length (Mistral, LM Studio), max_model_len (vLLM) and OpenRouter's
// top_provider.context_length; a model that names none keeps the known-model table's
// guess (GuessModel).
func (s *Service) listModels(ctx context.Context, p Provider, key string) ([]Model, error) {
	t := target{providerID: p.ID, baseURL: p.BaseURL}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.BaseURL+"/models", nil)
	if err != nil {
		return nil, invalid(err.Error())
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Accept", "application/json")
	headers, err := s.requestHeaders(p)
	if err != nil {
		return nil, err
	}
	for name, vs := range headers {
		req.Header[name] = vs
	}
	resp, err := s.httpFor(p.Proxy).Do(req)
	if err != nil {
		return nil, mapError(ctx, err, nil, t)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, mapStreamError(ctx, err, t)
	}
	if resp.StatusCode >= 400 {
		f := failure{status: resp.StatusCode, message: bodyMessage(body)}
		var probe struct {
			Error json.RawMessage `json:"error"`
		}
		f.jsonBody = json.Unmarshal(body, &probe) == nil && len(probe.Error) > 0
		if resp.StatusCode == http.StatusNotFound {
			return nil, invalid(fmt.Sprintf("%s does not list its models (HTTP 404); add model names by hand", p.BaseURL)).WithParam("providerId", p.ID)
		}
		f.retryAfter, f.hasRetry = parseRetryAfter(resp.Header, time.Now())
		return nil, classify(f, t)
	}
	var list struct {
		Data []struct {
			ID               string `json:"id"`
			ContextLength    int    `json:"context_length"`
			ContextWindow    int    `json:"context_window"`
			MaxContextLength int    `json:"max_context_length"`
			MaxModelLen      int    `json:"max_model_len"`
			TopProvider      *struct {
				ContextLength int `json:"context_length"`
			} `json:"top_provider"`
			SupportedParameters []string `json:"supported_parameters"`
			Capabilities        []string `json:"capabilities"`
			Architecture        *struct {
				InputModalities []string `json:"input_modalities"`
			} `json:"architecture"`
			Pricing *wirePricing `json:"pricing"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, apperr.Wrap(err, apperr.ModelStreamMalformed, "unreadable model list from %s", p.BaseURL)
	}
	out := make([]Model, 0, len(list.Data))
	for _, d := range list.Data {
		if d.ID == "" {
			continue
		}
		m := GuessModel(d.ID)
		m.Source = SourceFetched
		top := 0
		if d.TopProvider != nil {
			top = d.TopProvider.ContextLength
		}
		for _, n := range []int{d.ContextLength, d.ContextWindow, d.MaxContextLength, d.MaxModelLen, top} {
			if n > 0 {
				m.ContextWindow = n
				break
			}
		}
		if d.SupportedParameters != nil {
			m.SupportsTools = contains(d.SupportedParameters, "tools")
		}
		if contains(d.Capabilities, "tools") || contains(d.Capabilities, "function_calling") {
			m.SupportsTools = true
		}
		if contains(d.Capabilities, "vision") || (d.Architecture != nil && contains(d.Architecture.InputModalities, "image")) {
			m.Vision = true
		}
		if contains(d.SupportedParameters, "reasoning") || contains(d.Capabilities, "reasoning") {
			m.Reasoning = true
		}
		m.ListPrice = d.Pricing.price()
		out = append(out, m)
	}
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestResult is the outcome of TestProvider: a failure is a result, not an error, so the
// settings page shows it next to the provider.
type TestResult struct {
	OK        bool          `json:"ok"`
	Model     string        `json:"model"`
	LatencyMs int64         `json:"latencyMs"` // time to the first token
	Reply     string        `json:"reply,omitempty"`
	Error     *apperr.Error `json:"error,omitempty"`
}

// Test makes one tiny real request: it asks for one word and hangs up at the first token.
func (s *Service) Test(ctx context.Context, ref, model string) (TestResult, error) {
	p, err := s.Get(ctx, ref)
	if err != nil {
		return TestResult{}, err
	}
	tg, err := s.Resolve(ctx, p.ID, model)
	if err != nil {
		return TestResult{Model: model, Error: apperr.From(err)}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	first, cancelFirst := context.WithCancel(ctx)
	defer cancelFirst()
	start := time.Now()
	var latency time.Duration
	var reply strings.Builder
	got := func(d string) {
		if latency == 0 {
			latency = time.Since(start)
		}
		reply.WriteString(d)
		cancelFirst()
	}
	tg.Client.retry = RetryPolicy{} // a test shows the rate limit instead of waiting
	_, err = tg.Client.Stream(first, Request{Model: tg.Model.ID, Messages: []Message{{Role: RoleUser, Content: "Reply with the single word: OK"}}},
		Handler{Text: got, Reasoning: got})
	res := TestResult{Model: tg.Model.ID, LatencyMs: latency.Milliseconds(), Reply: reply.String()}
	switch {
	case latency > 0:
		res.OK = true
	case err == nil:
		res.OK, res.LatencyMs = true, time.Since(start).Milliseconds()
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Error = apperr.New(apperr.ModelUnreachable, "no answer from %s within 60 s", p.BaseURL).WithParam("url", p.BaseURL)
	default:
		res.Error = apperr.From(err)
	}
	return res, nil
}
