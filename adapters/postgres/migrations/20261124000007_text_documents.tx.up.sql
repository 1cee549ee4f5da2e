-- Documents are stored as the JSON text the library writes, as on SQLite:
-- no query looks inside them, and JSONB made the server parse every
-- document written (half the time of a batch's record inserts) and print
-- every document read. Ad hoc SQL can still cast: doc::jsonb.
DO $$
BEGIN
    IF (SELECT data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'records' AND column_name = 'doc') = 'jsonb' THEN
        ALTER TABLE records ALTER COLUMN doc TYPE TEXT USING doc::text;
    END IF;
END $$;
--bun:split
-- Documents and batch payloads are compressed with lz4 where the server
-- was built with it (pglz, the default, is several times slower). Values
-- written before keep their compression.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE records ALTER COLUMN doc SET COMPRESSION lz4;
        ALTER TABLE batch_payloads ALTER COLUMN payload SET COMPRESSION lz4;
    END IF;
END $$;
