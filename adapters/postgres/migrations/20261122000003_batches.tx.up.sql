-- The batch queue.
CREATE TABLE IF NOT EXISTS batches (
    id           TEXT PRIMARY KEY,
    account      TEXT NOT NULL,
    kind         TEXT NOT NULL,
    payload      BYTEA NOT NULL,
    count        INTEGER NOT NULL,
    status       TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    status_at    BIGINT NOT NULL,
    owner        TEXT NOT NULL DEFAULT '',
    lease_until  BIGINT,
    attempts     INTEGER NOT NULL DEFAULT 0,
    created      INTEGER NOT NULL DEFAULT 0,
    updated      INTEGER NOT NULL DEFAULT 0,
    skipped      INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT ''
);
--bun:split
CREATE INDEX IF NOT EXISTS batches_queue ON batches (status, requested_at, id);
--bun:split
CREATE INDEX IF NOT EXISTS batches_done ON batches (status, status_at);
