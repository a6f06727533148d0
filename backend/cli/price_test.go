package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/llm/llmtest"
)

// TestProviderPriceAndChatCost: `cairn provider price` sets a model's price, `prices`
// lists it, `cairn chat` ends an answer with its tokens and cost, a bad price is refused
// with its reason, and --clear takes the price away (and the cost with it).
func TestProviderPriceAndChatCost(t *testing.T) {
	t.Setenv("CAIRN_SECRETS", "file")
	dir := t.TempDir()
	srv := llmtest.Start(t, llmtest.WithHandler(llmtest.Auto), llmtest.WithModels(llmtest.AutoModels()...))
	if r := run(t, dir, "", "provider", "add", "fake", "--base-url", srv.URL, "--model", "fake-usage"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	r := run(t, dir, "", "chat", "--model", "fake-usage", "count")
	if r.code != 0 || !strings.Contains(r.stderr, "[1200 prompt + 300 completion tokens (1000 cached, 100 reasoning)]") {
		t.Fatalf("chat without a price: %+v", r)
	}

	r = run(t, dir, "", "provider", "price", "fake", "fake-usage", "--input", "3", "--output", "10", "--cached", "0.5")
	if r.code != 0 || r.stdout != "fake fake-usage: in 3, cached 0.5, out 10 USD (yours)\n" {
		t.Fatalf("price: %+v", r)
	}
	r = run(t, dir, "", "provider", "prices", "fake")
	if r.code != 0 || !strings.Contains(r.stdout, "fake-usage  in 3, cached 0.5, out 10 USD (yours)") {
		t.Fatalf("prices: %+v", r)
	}
	r = run(t, dir, "", "chat", "--model", "fake-usage", "count")
	if r.code != 0 || !strings.Contains(r.stderr, "(1000 cached, 100 reasoning), 0.0041 USD]") {
		t.Fatalf("chat with a price: %+v", r)
	}

	for _, bad := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--input", "abc", "--output", "1"}, 1, `"abc"`},
		{[]string{"--input", "1", "--output", "-2"}, 1, "from 0 to 10000"},
		{[]string{"--input", "1", "--output", "2", "--currency", "euro"}, 1, "three-letter code"},
		{[]string{"--input", "1"}, 2, "--output"},
	} {
		args := append([]string{"provider", "price", "fake", "fake-usage"}, bad.args...)
		if r := run(t, dir, "", args...); r.code != bad.code || !strings.Contains(r.stderr, bad.says) {
			t.Fatalf("%v: %+v", bad.args, r)
		}
	}
	if r := run(t, dir, "", "provider", "price", "fake", "other-model", "--input", "1", "--output", "1"); r.code != 1 || !strings.Contains(r.stderr, "does not list the model") {
		t.Fatalf("an unlisted model: %+v", r)
	}

	r = run(t, dir, "", "provider", "price", "fake", "fake-usage", "--clear", "--json")
	var m llm.Model
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &m) != nil || m.ID != "fake-usage" || m.Price != nil {
		t.Fatalf("clear: %+v", r)
	}
	r = run(t, dir, "", "chat", "--model", "fake-usage", "count")
	if r.code != 0 || strings.Contains(r.stderr, "USD") {
		t.Fatalf("chat after clearing: %+v", r)
	}
}
