-- The change records (DECISIONS §18): one row a change of a record, in
-- the transaction that made it. id is the change's position in the
-- changes feed: SQLite runs one write transaction at a time, so row ids
-- are commit order, and AUTOINCREMENT never hands out an id again after
-- a purge. rev numbers a record's changes (1, 2, ...; across a delete and
-- a re-create); time is microseconds since the Unix epoch, as the
-- records' times. document is the record's stored document and lists its
-- assignment lists as JSON ({"primary":[...],"secondary":[...]}, a
-- Resource's and a Map's): both NULL for a delete and for the revisions
-- before a delete. Each secondary index leads with a key of its own, as
-- the record tables' do: changes_feed (an account's changes in feed
-- order), changes_rev (a record's revisions, and their uniqueness: ids
-- never hold a '/') and changes_time (the purge of old revisions, every
-- account's, oldest first).
CREATE TABLE IF NOT EXISTS changes (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    account   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    record_id TEXT NOT NULL,
    rev       INTEGER NOT NULL,
    op        TEXT NOT NULL,
    time      INTEGER NOT NULL,
    author    TEXT NOT NULL,
    document  TEXT,
    lists     TEXT
);
--bun:split
CREATE INDEX IF NOT EXISTS changes_feed ON changes (account, id);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS changes_rev ON changes ((account || '/' || kind || '/' || record_id), rev);
--bun:split
CREATE INDEX IF NOT EXISTS changes_time ON changes (time, id);
--bun:split
-- The newest feed position the purge removed, per account: a reader
-- behind it has missed changes. seq is the position (the id, here).
CREATE TABLE IF NOT EXISTS change_horizons (
    account TEXT NOT NULL PRIMARY KEY,
    seq     INTEGER NOT NULL,
    id      INTEGER NOT NULL
);
