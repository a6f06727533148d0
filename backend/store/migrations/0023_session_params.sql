-- A conversation's request parameters beside its temperature: top_p NULL = the provider's
-- default, max_tokens 0 = the model's default answer length, context_messages 0 = every
-- earlier message of the path is sent (else only that many before the question).
ALTER TABLE sessions ADD COLUMN top_p REAL;
ALTER TABLE sessions ADD COLUMN max_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN context_messages INTEGER NOT NULL DEFAULT 0;
