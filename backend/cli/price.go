package cli

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/llm"
	"github.com/cairn-app/cairn/backend/termtext"
)

// priceFlags are `cairn provider price`'s flags as typed: a price left out stays out.
type priceFlags struct {
	input, output, cached, currency string
	clear                           bool
}

// parsePrice reads the typed numbers; the backend checks their range and the currency.
func (pf priceFlags) parsePrice() (llm.Price, error) {
	if pf.input == "" || pf.output == "" {
		return llm.Price{}, usageErr("cairn provider price needs --input and --output (per million tokens), or --clear")
	}
	num := func(flag, v string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, apperr.New(apperr.PriceInvalid, "--%s: %s is not a number", flag, apperr.Quote(v)).
				WithParam("value", apperr.Quote(v)).WithParam("max", llm.MaxPrice)
		}
		return f, nil
	}
	in, err := num("input", pf.input)
	if err != nil {
		return llm.Price{}, err
	}
	out, err := num("output", pf.output)
	if err != nil {
		return llm.Price{}, err
	}
	p := llm.Price{Input: in, Output: out, Currency: pf.currency}
	if pf.cached != "" {
		c, err := num("cached", pf.cached)
		if err != nil {
			return llm.Price{}, err
		}
		p.CachedInput = &c
	}
	return p, nil
}

// setPrice sets or clears the user's price of a provider's model.
func setPrice(ctx context.Context, env *Env, s providerBackend, ref, model string, pf priceFlags, asJSON bool) error {
	var p llm.Provider
	var err error
	if pf.clear {
		if pf.input != "" || pf.output != "" || pf.cached != "" {
			return usageErr("--clear takes no price")
		}
		p, err = s.ClearPrice(ctx, ref, model)
	} else {
		price, perr := pf.parsePrice()
		if perr != nil {
			return perr
		}
		p, err = s.SetPrice(ctx, ref, model, price)
	}
	if err != nil {
		return err
	}
	m := p.Model(model)
	if asJSON {
		return writeJSON(env.Stdout, m)
	}
	fmt.Fprintf(env.Stdout, "%s %s: %s\n", termtext.Line(p.Name), termtext.Line(model), priceText(m.Price))
	return nil
}

// printPrices lists the price of each of a provider's models and where it comes from.
func printPrices(ctx context.Context, env *Env, s providerBackend, ref string, asJSON bool) error {
	p, err := s.Get(ctx, ref)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(env.Stdout, p.Models)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPRICE (per million tokens)")
	for _, m := range p.Models {
		fmt.Fprintf(tw, "%s\t%s\n", termtext.Line(m.ID), priceText(m.Price))
	}
	return tw.Flush()
}

// priceText is a price as the terminal shows it: "in 2.5, cached 1.25, out 10 USD (default as of 2025-11)".
func priceText(p *llm.ModelPrice) string {
	if p == nil {
		return "no price"
	}
	cached := "unknown"
	if p.CachedInput != nil {
		cached = number(*p.CachedInput)
	}
	from := map[string]string{llm.PriceFromUser: "yours", llm.PriceFromProvider: "the provider's list", llm.PriceFromDefault: "default as of " + p.AsOf}[p.Source]
	return fmt.Sprintf("in %s, cached %s, out %s %s (%s)", number(p.Input), cached, number(p.Output), p.Currency, from)
}

// costText is an answer's cost for the terminal, with enough digits that a small one
// is not shown as zero: "0.0021 USD".
func costText(c *llm.Cost) string {
	a := c.Amount
	digits := 2
	if a > 0 && a < 1 {
		digits = max(2, int(math.Ceil(-math.Log10(a)))+1)
	}
	return strconv.FormatFloat(a, 'f', min(digits, 8), 64) + " " + c.Currency
}

func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// usageText is the line `cairn chat` prints after an answer: its tokens, the cached and
// reasoning ones where the provider reports them, and its cost when the model has a price.
func usageText(u *llm.Usage, c *llm.Cost) string {
	s := fmt.Sprintf("%d prompt + %d completion tokens", u.PromptTokens, u.CompletionTokens)
	var extra []string
	if u.CachedTokens > 0 {
		extra = append(extra, fmt.Sprintf("%d cached", u.CachedTokens))
	}
	if u.ReasoningTokens > 0 {
		extra = append(extra, fmt.Sprintf("%d reasoning", u.ReasoningTokens))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if c != nil {
		s += ", " + costText(c)
	}
	return s
}
