-- The change records (DECISIONS §18): one row a change of a record, in
-- the transaction that made it. A change's position in the changes feed
-- is (commit_seq, id): commit_seq is the commit position its transaction
-- took as its last step (change_tail), id its place in that transaction.
-- rev numbers a record's changes (1, 2, ...; across a delete and a
-- re-create); time is microseconds since the Unix epoch, as the records'
-- times. document is the record's stored document and lists its
-- assignment lists as JSON ({"primary":[...],"secondary":[...]}, a
-- Resource's and a Map's): both NULL for a delete and for the revisions
-- before a delete. Each secondary index leads with a key of its own, as
-- the record tables' do: changes_feed (an account's changes in feed
-- order), changes_rev (a record's revisions, and their uniqueness: ids
-- never hold a '/') and changes_time (the purge of old revisions, every
-- account's, oldest first). Ids compare in byte order (COLLATE "C"), as
-- records' do.
CREATE TABLE IF NOT EXISTS changes (
    id         BIGSERIAL PRIMARY KEY,
    commit_seq BIGINT NOT NULL,
    account    TEXT COLLATE "C" NOT NULL,
    kind       TEXT NOT NULL,
    record_id  TEXT COLLATE "C" NOT NULL,
    rev        BIGINT NOT NULL,
    op         TEXT NOT NULL,
    time       BIGINT NOT NULL,
    author     TEXT NOT NULL,
    document   TEXT,
    lists      TEXT
);
--bun:split
CREATE INDEX IF NOT EXISTS changes_feed ON changes (account, commit_seq, id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS changes_rev ON changes ((account || '/' || kind || '/' || record_id), rev);
--bun:split
CREATE INDEX IF NOT EXISTS changes_time ON changes (time, id);
--bun:split
-- Documents are compressed with lz4 where the server was built with it,
-- as the records' are.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        ALTER TABLE changes ALTER COLUMN document SET COMPRESSION lz4;
    END IF;
END $$;
--bun:split
-- The newest feed position the purge removed, per account: a reader
-- behind it has missed changes.
CREATE TABLE IF NOT EXISTS change_horizons (
    account TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    seq     BIGINT NOT NULL,
    id      BIGINT NOT NULL
);
--bun:split
-- Commit positions, one a transaction that writes changes. CACHE 1: a
-- session must not keep values ahead of the others'.
CREATE SEQUENCE IF NOT EXISTS change_commit_seq CACHE 1;
--bun:split
-- change_tail, an account's writer's last step before its commit: it
-- holds the account's change tail shared until the transaction ends,
-- THEN takes the next commit position (in this order, which a function
-- guarantees and a statement's expressions do not). The advisory key
-- space 26 is the change tails' (the store's other locks use 1 to 16);
-- the key names the schema, as every advisory key of the store does.
CREATE OR REPLACE FUNCTION change_tail(account TEXT) RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(26, hashtext(current_schema() || '/' || account));
    RETURN nextval('change_commit_seq');
END $$;
--bun:split
-- change_fence, run as a statement of its own outside any transaction:
-- it waits for the account's writers holding its tail (those that took a
-- position and have not ended), reads the last position handed out and
-- lets the tail go as the statement ends. Every writer of the account
-- that took a position at or below the answer has ended; those to come
-- take higher ones. The lock is the transaction-scoped kind: the
-- statement's own transaction ends it, so no error can leave it held on
-- a pooled connection.
CREATE OR REPLACE FUNCTION change_fence(account TEXT) RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    last BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(26, hashtext(current_schema() || '/' || account));
    SELECT CASE WHEN is_called THEN last_value ELSE 0 END INTO last FROM change_commit_seq;
    RETURN last;
END $$;
