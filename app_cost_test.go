package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/chat"
	"github.com/cairn-app/cairn/backend/events"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
	"github.com/cairn-app/cairn/backend/service"
)

// TestAnswersArePricedThroughTheFacade: through `cairn serve`, an answer from the fake
// provider carries its usage (cached and reasoning tokens included) and its cost at the
// provider's list price, in the snapshot and in the event that ends it; the user's
// price replaces it at once, a price without a cached-input price gives no cost for an
// answer with cached tokens, a bad price is refused without touching the stored one,
// and clearing it brings the list price back.
func TestAnswersArePricedThroughTheFacade(t *testing.T) {
	ctx := context.Background()
	s, err := service.Open(ctx, service.Options{DataDir: t.TempDir(), SecretsBackend: "file"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fake := llmtest.Start(t, llmtest.WithHandler(llmtest.Scenarios()["usage"]),
		llmtest.WithModels(llmtest.Model{ID: "fake-usage", Pricing: llmtest.UsagePricing()}))
	api := startRedactServe(t, s, io.Discard)

	var p llm.Provider
	api.call(t, "SaveProvider", []any{llm.ProviderInput{Name: "Fake", BaseURL: fake.URL, Models: []llm.Model{{ID: "fake-usage"}}}}, &p)
	api.call(t, "FetchModels", []any{p.ID}, &p)
	if pr := p.Model("fake-usage").Price; pr == nil || pr.Source != llm.PriceFromProvider {
		t.Fatalf("list price after the fetch: %+v", pr)
	}
	var sess chat.Session
	api.call(t, "CreateSession", []any{chat.SessionInput{ProviderID: p.ID, Model: "fake-usage", Toolsets: []string{}}}, &sess)

	sub := s.Bus.Subscribe(256)
	defer sub.Close()
	api.send(t, s, sess.ID)
	ended := lastUpdate(t, sub, sess.ID)
	if ended.Cost == nil || math.Abs(ended.Cost.Amount-0.0033) > 1e-12 {
		t.Fatalf("message:updated carries cost %+v, want 0.0033 USD", ended.Cost)
	}

	answer := func() chat.Message {
		var snap chat.Snapshot
		api.call(t, "GetSession", []any{sess.ID}, &snap)
		return snap.Messages[len(snap.Messages)-1]
	}
	wantCost := func(what string, amount float64, source string) {
		t.Helper()
		m := answer()
		u := m.Usage
		if u == nil || u.PromptTokens != 1200 || u.CachedTokens != 1000 || u.CompletionTokens != 300 || u.ReasoningTokens != 100 {
			t.Fatalf("%s: usage %+v", what, u)
		}
		if amount < 0 {
			if m.Cost != nil {
				t.Fatalf("%s: cost %+v, want none", what, m.Cost)
			}
			return
		}
		if m.Cost == nil || math.Abs(m.Cost.Amount-amount) > 1e-12 || m.Cost.Currency != "USD" || m.Cost.Source != source {
			t.Fatalf("%s: cost %+v, want %v USD from %s", what, m.Cost, amount, source)
		}
	}
	wantCost("list price", 0.0033, llm.PriceFromProvider)

	cached := 0.5
	api.call(t, "SetModelPrice", []any{p.ID, "fake-usage", llm.Price{Input: 3, Output: 10, CachedInput: &cached}}, &p)
	wantCost("user's price", 0.0041, llm.PriceFromUser)

	status, body := api.post(t, "SetModelPrice", []any{p.ID, "fake-usage", llm.Price{Input: 3, Output: -10}})
	if status != http.StatusBadRequest || !strings.Contains(body, `"price_invalid"`) {
		t.Fatalf("a negative price: %d %s", status, body)
	}
	status, body = api.post(t, "SetModelPrice", []any{p.ID, "fake-usage", llm.Price{Input: 3, Output: 10, Currency: "dollars"}})
	if status != http.StatusBadRequest || !strings.Contains(body, `"price_currency_invalid"`) {
		t.Fatalf("a bad currency: %d %s", status, body)
	}
	wantCost("after refused prices", 0.0041, llm.PriceFromUser)

	api.call(t, "SetModelPrice", []any{p.ID, "fake-usage", llm.Price{Input: 3, Output: 10}}, &p)
	wantCost("no cached-input price", -1, "")

	api.call(t, "ClearModelPrice", []any{p.ID, "fake-usage"}, &p)
	wantCost("cleared", 0.0033, llm.PriceFromProvider)
}

// lastUpdate reads the session's events until the answer's final message:updated.
func lastUpdate(t *testing.T, sub *events.Subscription, sessionID string) chat.Message {
	t.Helper()
	for {
		select {
		case ev := <-sub.C:
			if ev.Topic != events.SessionTopic(sessionID) || ev.Type != chat.EventMessageUpdated {
				continue
			}
			var m chat.Message
			if err := json.Unmarshal(ev.Data, &m); err != nil {
				t.Fatal(err)
			}
			if m.Status != chat.MessageStreaming {
				return m
			}
		default:
			t.Fatal("no message:updated ended the answer")
		}
	}
}
