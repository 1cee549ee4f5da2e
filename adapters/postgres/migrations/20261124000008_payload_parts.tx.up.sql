-- A batch payload is stored in parts of at most 1 MiB, so neither the
-- driver nor the server copies a 50 MB body whole to write or read it.
CREATE TABLE IF NOT EXISTS batch_payload_parts (
    id   TEXT NOT NULL,
    part INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (id, part)
);
--bun:split
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE batch_payload_parts ALTER COLUMN data SET COMPRESSION lz4;
    END IF;
END $$;
--bun:split
INSERT INTO batch_payload_parts (id, part, data)
    SELECT id, 0, payload FROM batch_payloads
    ON CONFLICT (id, part) DO NOTHING;
--bun:split
DROP TABLE IF EXISTS batch_payloads;
