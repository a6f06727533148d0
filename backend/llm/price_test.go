package llm

import (
	"context"
	"math"
	"testing"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

func f64(v float64) *float64 { return &v }

func TestCostOf(t *testing.T) {
	usd := func(in, out float64, cached *float64) *ModelPrice {
		return &ModelPrice{Price: Price{Input: in, Output: out, CachedInput: cached, Currency: "USD"}, Source: PriceFromUser}
	}
	cases := []struct {
		name  string
		usage *Usage
		price *ModelPrice
		want  float64 // -1: no cost
	}{
		{"prompt and completion", &Usage{PromptTokens: 1000, CompletionTokens: 500, TotalTokens: 1500}, usd(2, 8, nil), 0.006},
		{"total left out", &Usage{PromptTokens: 1000, CompletionTokens: 500}, usd(2, 8, nil), 0.006},
		{"cached at their own price", &Usage{PromptTokens: 1200, CachedTokens: 1000, CompletionTokens: 300, TotalTokens: 1500}, usd(2, 8, f64(0.5)), 0.0033},
		{"every prompt token cached", &Usage{PromptTokens: 1000, CachedTokens: 1000, CompletionTokens: 0}, usd(2, 8, f64(0.5)), 0.0005},
		{"a free cache", &Usage{PromptTokens: 1000, CachedTokens: 400, CompletionTokens: 10}, usd(1, 1, f64(0)), 0.00061},
		{"reasoning is output", &Usage{PromptTokens: 100, CompletionTokens: 900, ReasoningTokens: 800}, usd(1, 10, nil), 0.0091},
		{"no tokens", &Usage{}, usd(2, 8, nil), 0},
		{"a free model", &Usage{PromptTokens: 5000, CompletionTokens: 5000}, usd(0, 0, nil), 0},
		{"no price", &Usage{PromptTokens: 10, CompletionTokens: 10}, nil, -1},
		{"no usage", nil, usd(2, 8, nil), -1},
		{"cached tokens, no cached price", &Usage{PromptTokens: 1200, CachedTokens: 1000, CompletionTokens: 300}, usd(2, 8, nil), -1},
		{"more cached than prompt", &Usage{PromptTokens: 10, CachedTokens: 11, CompletionTokens: 1}, usd(2, 8, f64(1)), -1},
		{"more reasoning than completion", &Usage{PromptTokens: 10, CompletionTokens: 5, ReasoningTokens: 50}, usd(2, 8, nil), -1},
		{"tokens only the total counts", &Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 400}, usd(2, 8, nil), -1},
		{"negative counts", &Usage{PromptTokens: -10, CompletionTokens: 5}, usd(2, 8, nil), -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CostOf(c.usage, c.price)
			if c.want < 0 {
				if got != nil {
					t.Fatalf("cost = %+v, want none", got)
				}
				return
			}
			if got == nil {
				t.Fatal("no cost")
			}
			if math.Abs(got.Amount-c.want) > 1e-12 || got.Currency != "USD" || got.Source != PriceFromUser {
				t.Fatalf("cost = %+v, want %v USD from the user's price", got, c.want)
			}
		})
	}
}

func TestNormalizePrice(t *testing.T) {
	cases := []struct {
		name     string
		in       Price
		code     apperr.Code // "" = accepted
		currency string
	}{
		{"defaults to USD", Price{Input: 1, Output: 2}, "", "USD"},
		{"currency upper-cased", Price{Input: 1, Output: 2, Currency: " cny "}, "", "CNY"},
		{"zero is a price", Price{Input: 0, Output: 0, CachedInput: f64(0)}, "", "USD"},
		{"the bound itself", Price{Input: MaxPrice, Output: 1}, "", "USD"},
		{"negative", Price{Input: -1, Output: 2}, apperr.PriceInvalid, ""},
		{"too large", Price{Input: 1, Output: MaxPrice + 1}, apperr.PriceInvalid, ""},
		{"NaN", Price{Input: math.NaN(), Output: 2}, apperr.PriceInvalid, ""},
		{"infinite cached", Price{Input: 1, Output: 2, CachedInput: f64(math.Inf(1))}, apperr.PriceInvalid, ""},
		{"not a code", Price{Input: 1, Output: 2, Currency: "dollars"}, apperr.PriceCurrencyInvalid, ""},
		{"a symbol", Price{Input: 1, Output: 2, Currency: "$"}, apperr.PriceCurrencyInvalid, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := NormalizePrice(c.in)
			if c.code != "" {
				if !apperr.Is(err, c.code) {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil || got.Currency != c.currency {
				t.Fatalf("got %+v, %v; want currency %s", got, err, c.currency)
			}
		})
	}
}

func TestListPricing(t *testing.T) {
	cases := []struct {
		name    string
		pricing *wirePricing
		want    *Price
	}{
		{"none", nil, nil},
		{"OpenRouter's strings", &wirePricing{Prompt: "0.0000025", Completion: "0.00001", InputCacheRead: "0.00000125", Request: "0"},
			&Price{Input: 2.5, Output: 10, CachedInput: f64(1.25), Currency: "USD"}},
		{"no cache price", &wirePricing{Prompt: "0.000003", Completion: "0.000015"}, &Price{Input: 3, Output: 15, Currency: "USD"}},
		{"free", &wirePricing{Prompt: "0", Completion: "0"}, &Price{Input: 0, Output: 0, Currency: "USD"}},
		{"reasoning priced as output", &wirePricing{Prompt: "0.000001", Completion: "0.000004", InternalReasoning: "0.000004"}, &Price{Input: 1, Output: 4, Currency: "USD"}},
		{"a price that varies", &wirePricing{Prompt: "-1", Completion: "-1"}, nil},
		{"completion missing", &wirePricing{Prompt: "0.000001"}, nil},
		{"not a number", &wirePricing{Prompt: "cheap", Completion: "0.000001"}, nil},
		{"a fee per request", &wirePricing{Prompt: "0.000001", Completion: "0.000002", Request: "0.005"}, nil},
		{"reasoning priced apart", &wirePricing{Prompt: "0.000001", Completion: "0.000002", InternalReasoning: "0.00001"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.pricing.price()
			if (got == nil) != (c.want == nil) {
				t.Fatalf("price = %+v, want %+v", got, c.want)
			}
			if got == nil {
				return
			}
			same := got.Input == c.want.Input && got.Output == c.want.Output && got.Currency == c.want.Currency &&
				(got.CachedInput == nil) == (c.want.CachedInput == nil) && (got.CachedInput == nil || *got.CachedInput == *c.want.CachedInput)
			if !same {
				t.Fatalf("price = %+v (cached %v), want %+v", got, got.CachedInput, c.want)
			}
		})
	}
}

func TestDefaultPriceOnlyOnTheVendorsHost(t *testing.T) {
	cases := []struct {
		baseURL, model string
		in             float64 // -1: none
		cached         bool
		currency       string
	}{
		{"https://api.openai.com/v1", "gpt-4o", 2.5, true, "USD"},
		{"https://api.openai.com/v1", "GPT-4.1-mini", 0.4, true, "USD"},
		{"https://api.openai.com/v1", "o3-pro", 20, false, "USD"},
		{"https://api.openai.com/v1", "gpt-4o-2024-05-13", -1, false, ""}, // a snapshot that cost more is not guessed
		{"https://api.deepseek.com/v1", "deepseek-reasoner", 0.28, true, "USD"},
		{"https://api.moonshot.cn/v1", "kimi-k2-0905-preview", 4, true, "CNY"},
		{"https://api.anthropic.com/v1/", "claude-sonnet-4-5", 3, true, "USD"},
		{"https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash", 0.3, false, "USD"},
		{"https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-pro", -1, false, ""}, // priced by request length
		{"http://127.0.0.1:11434/v1", "gpt-4o", -1, false, ""},                                       // a local server
		{"https://openrouter.ai/api/v1", "deepseek-chat", -1, false, ""},                             // a reseller has its own list
		{"", "gpt-4o", -1, false, ""},
	}
	for _, c := range cases {
		p, ok := DefaultPrice(c.baseURL, c.model)
		if c.in < 0 {
			if ok || p != nil {
				t.Errorf("%s %s: default %+v, want none", c.baseURL, c.model, p)
			}
			continue
		}
		if !ok || p.Input != c.in || (p.CachedInput != nil) != c.cached || p.Currency != c.currency || p.Source != PriceFromDefault || p.AsOf != KnownPricesAsOf {
			t.Errorf("%s %s: default %+v, want input %v %s (cached price %v)", c.baseURL, c.model, p, c.in, c.currency, c.cached)
		}
	}
}

// TestPricesRoundTrip: a user's price is stored per provider and model, wins over the
// list price and the default, comes back exactly (a missing cached price stays
// missing), announces the provider list, and goes with its provider.
func TestPricesRoundTrip(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	srv := llmtest.Start(t, llmtest.WithModels(
		llmtest.Model{ID: "listed", Pricing: map[string]string{"prompt": "0.000002", "completion": "0.000008", "input_cache_read": "0.0000005"}},
		llmtest.Model{ID: "plain"},
	))
	p, err := e.svc.Save(ctx, ProviderInput{Name: "Fake", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if p, err = e.svc.FetchModels(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	listed := p.Model("listed")
	if listed.Price == nil || listed.Price.Source != PriceFromProvider || listed.Price.Input != 2 || *listed.Price.CachedInput != 0.5 {
		t.Fatalf("listed model's price = %+v", listed.Price)
	}
	if p.Model("plain").Price != nil {
		t.Fatalf("a model without a price got %+v", p.Model("plain").Price)
	}

	sub := e.bus.Subscribe(16)
	defer sub.Close()
	if p, err = e.svc.SetPrice(ctx, "Fake", "listed", Price{Input: 3, Output: 10, CachedInput: f64(0.25), Currency: "eur"}); err != nil {
		t.Fatal(err)
	}
	if ev := <-sub.C; ev.Type != EventProvidersChanged {
		t.Fatalf("event %s, want %s", ev.Type, EventProvidersChanged)
	}
	got := p.Model("listed").Price
	if got == nil || got.Source != PriceFromUser || got.Input != 3 || got.Output != 10 || *got.CachedInput != 0.25 || got.Currency != "EUR" {
		t.Fatalf("user's price = %+v", got)
	}
	if _, err = e.svc.SetPrice(ctx, p.ID, "plain", Price{Input: 1, Output: 2}); err != nil {
		t.Fatal(err)
	}
	if pr := e.svc.PriceOf(ctx, p.ID, "plain"); pr == nil || pr.CachedInput != nil || pr.Currency != "USD" || pr.Source != PriceFromUser {
		t.Fatalf("PriceOf(plain) = %+v; a cached price never set must stay unset", pr)
	}
	// A window saving the provider sends the models back; the prices stay theirs.
	if _, err = e.svc.Save(ctx, ProviderInput{ID: p.ID, Name: "Fake", BaseURL: srv.URL, Models: p.Models}); err != nil {
		t.Fatal(err)
	}
	if p, err = e.svc.ClearPrice(ctx, p.ID, "listed"); err != nil {
		t.Fatal(err)
	}
	if pr := p.Model("listed").Price; pr == nil || pr.Source != PriceFromProvider || pr.Input != 2 {
		t.Fatalf("after clearing, the list price should apply again: %+v", pr)
	}

	if _, err := e.svc.SetPrice(ctx, p.ID, "unlisted", Price{Input: 1, Output: 1}); !apperr.Is(err, apperr.ProviderInvalid) {
		t.Fatalf("a price for a model the provider does not list: %v", err)
	}
	if _, err := e.svc.SetPrice(ctx, p.ID, "plain", Price{Input: -1, Output: 1}); !apperr.Is(err, apperr.PriceInvalid) {
		t.Fatalf("a negative price: %v", err)
	}
	if pr := e.svc.PriceOf(ctx, p.ID, "plain"); pr == nil || pr.Input != 1 {
		t.Fatalf("a refused price replaced the stored one: %+v", pr)
	}

	if err := e.svc.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := e.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM model_prices").Scan(&n); err != nil || n != 0 {
		t.Fatalf("prices left after the provider went: %d, %v", n, err)
	}
	if pr := e.svc.PriceOf(ctx, p.ID, "plain"); pr != nil {
		t.Fatalf("a deleted provider's model has a price: %+v", pr)
	}
}

// TestPresetModelsGetDefaults: a provider on a vendor's host shows Cairn's defaults,
// labelled as such; the user's price replaces one.
func TestPresetModelsGetDefaults(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	p, err := e.svc.Save(ctx, ProviderInput{Name: "OpenAI", Preset: "openai", APIKey: "sk-default-prices-0000"})
	if err != nil {
		t.Fatal(err)
	}
	pr := p.Model("gpt-4o").Price
	if pr == nil || pr.Source != PriceFromDefault || pr.Input != 2.5 || pr.Output != 10 || pr.AsOf == "" {
		t.Fatalf("gpt-4o's default = %+v", pr)
	}
	if p, err = e.svc.SetPrice(ctx, p.ID, "gpt-4o", Price{Input: 1, Output: 4}); err != nil {
		t.Fatal(err)
	}
	if pr := p.Model("gpt-4o").Price; pr.Source != PriceFromUser || pr.Input != 1 {
		t.Fatalf("user's price over the default: %+v", pr)
	}
}
