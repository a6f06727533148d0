package llm

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cairn-app/cairn/backend/apperr"
)

// Price is what a model costs, per million tokens, in Currency (an ISO 4217 code).
// CachedInput is the price of prompt tokens the provider read from its cache; nil when
// it is not known, and then an answer with cached tokens has no cost rather than a
// guessed one.
type Price struct {
	Input       float64  `json:"input"`
	Output      float64  `json:"output"`
	CachedInput *float64 `json:"cachedInput,omitempty"`
	Currency    string   `json:"currency"`
}

// Where a model's price comes from, in the order one wins over the next.
const (
	PriceFromUser     = "user"     // set in Settings or with `cairn provider price`
	PriceFromProvider = "provider" // the provider's model list says it (OpenRouter)
	PriceFromDefault  = "default"  // Cairn's table of published prices (knownPrices)
)

// ModelPrice is the price that applies to a model and where it comes from; AsOf is the
// date of a default (the table's), so a window can say how old it is.
type ModelPrice struct {
	Price
	Source string `json:"source"`
	AsOf   string `json:"asOf,omitempty"`
}

// Cost is what one answer cost at the price that applied, and where that price came
// from (AsOf: the date of a default).
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
	Source   string  `json:"source"`
	AsOf     string  `json:"asOf,omitempty"`
}

// DefaultCurrency is the currency of a price saved without one.
const DefaultCurrency = "USD"

// MaxPrice bounds a price per million tokens: far above any model's, low enough that a
// typo (a price per token typed as per million, times a million) is caught.
const MaxPrice = 10000

var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// NormalizePrice checks a price a user typed and fills in the default currency; an error
// is price_invalid or price_currency_invalid, naming the value.
func NormalizePrice(p Price) (Price, error) {
	for _, v := range []*float64{&p.Input, &p.Output, p.CachedInput} {
		if v == nil {
			continue
		}
		if math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0 || *v > MaxPrice {
			return Price{}, apperr.New(apperr.PriceInvalid, "a price must be a number from 0 to %d per million tokens, not %v", MaxPrice, *v).
				WithParam("value", fmt.Sprint(*v)).WithParam("max", MaxPrice)
		}
	}
	p.Currency = strings.ToUpper(strings.TrimSpace(p.Currency))
	if p.Currency == "" {
		p.Currency = DefaultCurrency
	}
	if !currencyRE.MatchString(p.Currency) {
		return Price{}, apperr.New(apperr.PriceCurrencyInvalid, "the currency must be a three-letter code such as USD, not %s", apperr.Quote(p.Currency)).
			WithParam("currency", apperr.Quote(p.Currency))
	}
	return p, nil
}

// CostOf is what usage u cost at price p, or nil when that cannot be said exactly: no
// price, no usage, counts that do not add up (more cached than prompt tokens, more
// reasoning than completion tokens, or a total above prompt plus completion, which means
// tokens billed in a way the counts do not say, such as thinking reported only in the
// total), or cached tokens without a cached-input price. Prompt tokens include the
// cached ones and completion tokens the reasoning ones, as OpenAI, DeepSeek and the
// others that report the details count them; so cached tokens are charged at their own
// price, the rest of the prompt at the input price, and reasoning as output.
func CostOf(u *Usage, p *ModelPrice) *Cost {
	if u == nil || p == nil || u.PromptTokens < 0 || u.CompletionTokens < 0 || u.CachedTokens < 0 {
		return nil
	}
	if u.CachedTokens > u.PromptTokens || u.ReasoningTokens > u.CompletionTokens || u.TotalTokens > u.PromptTokens+u.CompletionTokens {
		return nil
	}
	cachedCost := 0.0
	if u.CachedTokens > 0 {
		if p.CachedInput == nil {
			return nil
		}
		cachedCost = float64(u.CachedTokens) * *p.CachedInput
	}
	amount := (float64(u.PromptTokens-u.CachedTokens)*p.Input + cachedCost + float64(u.CompletionTokens)*p.Output) / 1e6
	return &Cost{Amount: amount, Currency: p.Currency, Source: p.Source, AsOf: p.AsOf}
}

// perMillion turns a price per token as a decimal string (OpenRouter's pricing fields)
// into a price per million tokens, rounded to a millionth so that "0.0000025" is 2.5;
// ok is false for an empty, unreadable or negative value (OpenRouter says -1 for a price
// that varies).
func perMillion(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	m := math.Round(v*1e12) / 1e6
	if m > MaxPrice {
		return 0, false
	}
	return m, true
}

// wirePricing is OpenRouter's pricing of a model in its /models list: USD per token as
// decimal strings.
type wirePricing struct {
	Prompt            string `json:"prompt"`
	Completion        string `json:"completion"`
	InputCacheRead    string `json:"input_cache_read"`
	Request           string `json:"request"`
	InternalReasoning string `json:"internal_reasoning"`
}

// price is the list price, or nil when the pricing cannot be applied to an answer's
// usage as it is: a prompt or completion price missing or varying, a fee per request
// (an answer's rounds are not counted), or reasoning priced apart from the output.
func (w *wirePricing) price() *Price {
	if w == nil {
		return nil
	}
	in, okIn := perMillion(w.Prompt)
	out, okOut := perMillion(w.Completion)
	if !okIn || !okOut {
		return nil
	}
	if req, err := strconv.ParseFloat(strings.TrimSpace(w.Request), 64); err == nil && req != 0 {
		return nil
	}
	if r, ok := perMillion(w.InternalReasoning); ok && r > 0 && r != out {
		return nil
	}
	p := &Price{Input: in, Output: out, Currency: DefaultCurrency}
	if c, ok := perMillion(w.InputCacheRead); ok {
		p.CachedInput = &c
	}
	return p
}
