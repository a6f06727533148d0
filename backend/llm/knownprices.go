package llm

import "strings"

// KnownPricesAsOf is when the table below was written down from the vendors' published
// price lists. Prices change: the window shows these as defaults with this date, and
// the user's own price for a model always wins over them.
const KnownPricesAsOf = "2025-11"

// knownPrice is one line of the table: a vendor's API host, the model ids it bills alike
// (snapshot names listed one by one, since a dated snapshot may cost something else),
// and the price per million tokens. cached is 0 where the table gives no cached-input
// price (the vendor has none, or its rule is not a flat price), and then an answer with
// cached tokens shows no cost.
type knownPrice struct {
	host       string
	models     []string
	in, cached float64
	out        float64
	currency   string
}

// knownPrices are the standard (not batch, not priority) prices of common models on
// their vendors' own APIs, as published in November 2025 (KnownPricesAsOf). Only the
// vendor's host gets them: the same model id on a local server or a reseller costs
// something else. Models whose price depends on the length of a request (Gemini 2.5 Pro,
// Qwen-Plus, GLM-4.5 above a threshold) or on whether they think (Qwen's hybrid models)
// are left out, since an answer's usage is summed over its rounds and cannot say which
// tier applied.
func knownPrices() []knownPrice {
	return []knownPrice{
		// OpenAI, USD.
		{host: "api.openai.com", models: []string{"gpt-5", "gpt-5-2025-08-07", "gpt-5-chat-latest", "gpt-5.1", "gpt-5.1-chat-latest"}, in: 1.25, cached: 0.125, out: 10, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-5-mini", "gpt-5-mini-2025-08-07"}, in: 0.25, cached: 0.025, out: 2, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-5-nano", "gpt-5-nano-2025-08-07"}, in: 0.05, cached: 0.005, out: 0.40, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-4.1", "gpt-4.1-2025-04-14"}, in: 2, cached: 0.50, out: 8, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"}, in: 0.40, cached: 0.10, out: 1.60, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-4.1-nano", "gpt-4.1-nano-2025-04-14"}, in: 0.10, cached: 0.025, out: 0.40, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-2024-11-20"}, in: 2.50, cached: 1.25, out: 10, currency: "USD"},
		{host: "api.openai.com", models: []string{"gpt-4o-mini", "gpt-4o-mini-2024-07-18"}, in: 0.15, cached: 0.075, out: 0.60, currency: "USD"},
		{host: "api.openai.com", models: []string{"o1", "o1-2024-12-17"}, in: 15, cached: 7.50, out: 60, currency: "USD"},
		{host: "api.openai.com", models: []string{"o3", "o3-2025-04-16"}, in: 2, cached: 0.50, out: 8, currency: "USD"},
		{host: "api.openai.com", models: []string{"o3-mini", "o3-mini-2025-01-31"}, in: 1.10, cached: 0.55, out: 4.40, currency: "USD"},
		{host: "api.openai.com", models: []string{"o4-mini", "o4-mini-2025-04-16"}, in: 1.10, cached: 0.275, out: 4.40, currency: "USD"},
		{host: "api.openai.com", models: []string{"o3-pro", "o3-pro-2025-06-10"}, in: 20, out: 80, currency: "USD"},
		// DeepSeek, USD (accounts billed in CNY change the currency and the numbers).
		{host: "api.deepseek.com", models: []string{"deepseek-chat", "deepseek-reasoner"}, in: 0.28, cached: 0.028, out: 0.42, currency: "USD"},
		// Anthropic's OpenAI-compatible endpoint, USD; cached = a cache read.
		{host: "api.anthropic.com", models: []string{"claude-opus-4-5", "claude-opus-4-5-20251101"}, in: 5, cached: 0.50, out: 25, currency: "USD"},
		{host: "api.anthropic.com", models: []string{"claude-opus-4-1", "claude-opus-4-1-20250805", "claude-opus-4-0", "claude-opus-4-20250514"}, in: 15, cached: 1.50, out: 75, currency: "USD"},
		{host: "api.anthropic.com", models: []string{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-0", "claude-sonnet-4-20250514", "claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219"}, in: 3, cached: 0.30, out: 15, currency: "USD"},
		{host: "api.anthropic.com", models: []string{"claude-haiku-4-5", "claude-haiku-4-5-20251001"}, in: 1, cached: 0.10, out: 5, currency: "USD"},
		{host: "api.anthropic.com", models: []string{"claude-3-5-haiku-latest", "claude-3-5-haiku-20241022"}, in: 0.80, cached: 0.08, out: 4, currency: "USD"},
		// Google's OpenAI-compatible Gemini endpoint, USD (text input).
		{host: "generativelanguage.googleapis.com", models: []string{"gemini-2.5-flash"}, in: 0.30, out: 2.50, currency: "USD"},
		{host: "generativelanguage.googleapis.com", models: []string{"gemini-2.5-flash-lite"}, in: 0.10, out: 0.40, currency: "USD"},
		{host: "generativelanguage.googleapis.com", models: []string{"gemini-2.0-flash"}, in: 0.10, out: 0.40, currency: "USD"},
		{host: "generativelanguage.googleapis.com", models: []string{"gemini-2.0-flash-lite"}, in: 0.075, out: 0.30, currency: "USD"},
		// Mistral AI, USD.
		{host: "api.mistral.ai", models: []string{"mistral-medium-latest"}, in: 0.40, out: 2, currency: "USD"},
		{host: "api.mistral.ai", models: []string{"mistral-small-latest"}, in: 0.10, out: 0.30, currency: "USD"},
		{host: "api.mistral.ai", models: []string{"mistral-large-latest"}, in: 2, out: 6, currency: "USD"},
		{host: "api.mistral.ai", models: []string{"magistral-medium-latest"}, in: 2, out: 5, currency: "USD"},
		{host: "api.mistral.ai", models: []string{"magistral-small-latest"}, in: 0.50, out: 1.50, currency: "USD"},
		// Moonshot: the Chinese platform in CNY, the international one in USD.
		{host: "api.moonshot.cn", models: []string{"kimi-k2-0905-preview", "kimi-k2-0711-preview"}, in: 4, cached: 1, out: 16, currency: "CNY"},
		{host: "api.moonshot.ai", models: []string{"kimi-k2-0905-preview", "kimi-k2-0711-preview"}, in: 0.60, cached: 0.15, out: 2.50, currency: "USD"},
		// Qwen on DashScope: the Chinese endpoint in CNY, the international one in USD.
		{host: "dashscope.aliyuncs.com", models: []string{"qwen-max"}, in: 2.4, out: 9.6, currency: "CNY"},
		{host: "dashscope-intl.aliyuncs.com", models: []string{"qwen-max"}, in: 1.6, out: 6.4, currency: "USD"},
	}
}

// DefaultPrice is Cairn's default price of model on the provider at baseURL: a line of
// the table for the vendor's own host, matched by exact model id (case-insensitive).
func DefaultPrice(baseURL, model string) (*ModelPrice, bool) {
	host := hostOf(baseURL)
	if host == "" {
		return nil, false
	}
	for _, k := range knownPrices() {
		if k.host != host {
			continue
		}
		for _, id := range k.models {
			if strings.EqualFold(id, strings.TrimSpace(model)) {
				p := &ModelPrice{Price: Price{Input: k.in, Output: k.out, Currency: k.currency}, Source: PriceFromDefault, AsOf: KnownPricesAsOf}
				if k.cached > 0 {
					c := k.cached
					p.CachedInput = &c
				}
				return p, true
			}
		}
	}
	return nil, false
}
