-- Batch payloads live apart from the queue rows: a claim, a heartbeat or a
-- result then updates a small row instead of rewriting megabytes.
CREATE TABLE IF NOT EXISTS batch_payloads (
    id      TEXT PRIMARY KEY,
    payload BLOB NOT NULL
);
--bun:split
INSERT INTO batch_payloads (id, payload)
    SELECT id, payload FROM batches WHERE status IN ('waiting', 'processing') AND length(payload) > 0
    ON CONFLICT (id) DO NOTHING;
--bun:split
-- batches.payload stays, always empty: SQLite cannot drop a column in a
-- statement that is safe to run twice.
UPDATE batches SET payload = x'' WHERE length(payload) > 0;
