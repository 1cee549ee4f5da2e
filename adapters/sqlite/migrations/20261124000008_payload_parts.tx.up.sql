-- A batch payload is stored in parts of at most 1 MiB, so neither the
-- driver nor SQLite copies a 50 MB body whole to write or read it.
CREATE TABLE IF NOT EXISTS batch_payload_parts (
    id   TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (id, part)
);
--bun:split
INSERT INTO batch_payload_parts (id, part, data)
    SELECT id, 0, payload FROM batch_payloads WHERE true -- a WHERE lets SQLite read ON CONFLICT
    ON CONFLICT (id, part) DO NOTHING;
--bun:split
DROP TABLE IF EXISTS batch_payloads;
