-- Batch progress and outcomes (DECISIONS §10): processed is how many
-- records the current claim has applied, written with the lease's
-- heartbeat; outcomes, set when a batch is done, is one line per record
-- in batch order, its outcome's letter then its id.
ALTER TABLE batches ADD COLUMN IF NOT EXISTS processed INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE batches ADD COLUMN IF NOT EXISTS outcomes BYTEA;
