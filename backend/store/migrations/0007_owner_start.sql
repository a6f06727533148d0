-- The owner of a streaming message or a pending approval is its process's PID and start
-- time (pidcheck.Owner): a PID alone is taken over by whatever process gets the number
-- next, and what the dead owner left would wait forever. 0 = not known (older rows).
ALTER TABLE messages ADD COLUMN owner_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE approval_requests ADD COLUMN owner_start INTEGER NOT NULL DEFAULT 0;
