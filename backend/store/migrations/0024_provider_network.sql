-- A provider's custom headers (JSON [{name, value, secret}]; a secret one's value is in the
-- secret store) and its proxy: system, none or a proxy URL.
ALTER TABLE providers ADD COLUMN headers TEXT NOT NULL DEFAULT '[]';
ALTER TABLE providers ADD COLUMN proxy TEXT NOT NULL DEFAULT 'system';
