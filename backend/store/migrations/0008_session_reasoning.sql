-- A conversation's reasoning choice over its model's ('' / 0 = the model's setting).
ALTER TABLE sessions ADD COLUMN reasoning_effort TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN reasoning_budget INTEGER NOT NULL DEFAULT 0;
