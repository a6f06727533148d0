package llm

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
)

// SetPrice stores the user's price of one of a provider's models (migration 0027's
// model_prices), which wins over the provider's list price and Cairn's default, and
// announces the provider list again so that windows show it and their costs follow.
func (s *Service) SetPrice(ctx context.Context, ref, model string, in Price) (Provider, error) {
	p, id, err := s.pricedModel(ctx, ref, model)
	if err != nil {
		return Provider{}, err
	}
	price, err := NormalizePrice(in)
	if err != nil {
		return Provider{}, err
	}
	var cached any
	if price.CachedInput != nil {
		cached = *price.CachedInput
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO model_prices(provider_id, model, input, output, cached_input, currency, updated_at) VALUES(?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(provider_id, model) DO UPDATE SET input = excluded.input, output = excluded.output, cached_input = excluded.cached_input,
		currency = excluded.currency, updated_at = excluded.updated_at`,
		p.ID, id, price.Input, price.Output, cached, price.Currency, time.Now().UnixMilli())
	if err != nil {
		return Provider{}, apperr.Wrap(err, apperr.Internal, "save price")
	}
	s.publish(ctx)
	return s.Get(ctx, p.ID)
}

// ClearPrice removes the user's price of a model: the provider's list price or Cairn's
// default applies again, if there is one.
func (s *Service) ClearPrice(ctx context.Context, ref, model string) (Provider, error) {
	p, id, err := s.pricedModel(ctx, ref, model)
	if err != nil {
		return Provider{}, err
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM model_prices WHERE provider_id = ? AND model = ?", p.ID, id); err != nil {
		return Provider{}, apperr.Wrap(err, apperr.Internal, "clear price")
	}
	s.publish(ctx)
	return s.Get(ctx, p.ID)
}

// pricedModel finds the provider and the model a price is for: one of its listed models,
// since a price belongs to a model the window shows.
func (s *Service) pricedModel(ctx context.Context, ref, model string) (Provider, string, error) {
	p, err := s.Get(ctx, ref)
	if err != nil {
		return Provider{}, "", err
	}
	id := strings.TrimSpace(model)
	if !hasModel(p.Models, id) {
		return Provider{}, "", invalid(fmt.Sprintf("%s does not list the model %s; add it to the provider's models first", p.Name, apperr.Quote(id))).WithParam("providerId", p.ID)
	}
	return p, id, nil
}

// PriceOf is the price that applies to a provider's model, or nil when none is known (a
// deleted provider, a model without a price): the user's, else the provider's list
// price, else Cairn's default for the vendor's host.
func (s *Service) PriceOf(ctx context.Context, providerID, model string) *ModelPrice {
	p, err := s.Get(ctx, providerID)
	if err != nil || p.ID != providerID {
		return nil
	}
	for _, m := range p.Models {
		if m.ID == model {
			return m.Price
		}
	}
	user, err := s.userPrices(ctx, p.ID)
	if err != nil {
		return nil
	}
	return effectivePrice(p.BaseURL, Model{ID: model}, user)
}

// effectivePrice applies the order user > provider > default to one model.
func effectivePrice(baseURL string, m Model, user map[string]Price) *ModelPrice {
	if u, ok := user[m.ID]; ok {
		return &ModelPrice{Price: u, Source: PriceFromUser}
	}
	if m.ListPrice != nil {
		return &ModelPrice{Price: *m.ListPrice, Source: PriceFromProvider}
	}
	if d, ok := DefaultPrice(baseURL, m.ID); ok {
		return d
	}
	return nil
}

// fillPrices sets every listed model's Price from the user's prices of the providers.
func (s *Service) fillPrices(ctx context.Context, ps []Provider) error {
	for i := range ps {
		user, err := s.userPrices(ctx, ps[i].ID)
		if err != nil {
			return err
		}
		for j := range ps[i].Models {
			ps[i].Models[j].Price = effectivePrice(ps[i].BaseURL, ps[i].Models[j], user)
		}
	}
	return nil
}

// userPrices reads the prices the user set for a provider's models, by model id.
func (s *Service) userPrices(ctx context.Context, providerID string) (map[string]Price, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT model, input, output, cached_input, currency FROM model_prices WHERE provider_id = ?", providerID)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read prices")
	}
	defer rows.Close()
	out := map[string]Price{}
	for rows.Next() {
		var model string
		var p Price
		var cached sql.NullFloat64
		if err := rows.Scan(&model, &p.Input, &p.Output, &cached, &p.Currency); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "read prices")
		}
		if cached.Valid {
			v := cached.Float64
			p.CachedInput = &v
		}
		out[model] = p
	}
	if err := rows.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "read prices")
	}
	return out, nil
}
