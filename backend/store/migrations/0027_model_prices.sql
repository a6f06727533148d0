-- The user's price of a provider's model, per million tokens, in currency (ISO 4217);
-- cached_input NULL = no price for cached prompt tokens. It wins over the provider's list
-- price (stored with the provider's models) and Cairn's default table; it goes with its
-- provider.
CREATE TABLE model_prices (
    provider_id  TEXT NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
    model        TEXT NOT NULL,
    input        REAL NOT NULL,
    output       REAL NOT NULL,
    cached_input REAL,
    currency     TEXT NOT NULL DEFAULT 'USD',
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (provider_id, model)
) WITHOUT ROWID;
