-- Uploaded files' metadata (the bytes live in the blob store). Ids are
-- unique in the deployment; an account holds one file per content
-- digest. Every secondary index leads with a key of its own, as the
-- record tables' do, so that a statement can use no index but the one
-- whose key it spells: files_sha256 (a content's file, and the
-- uniqueness of a digest in an account: account ids and digests never
-- hold a '/'), files_list (an account's files newest first), files_type
-- (the same list of one media type) and files_created (every account's
-- files oldest first, for the purge of unused ones: its key is the
-- expression created + 0, the instant itself, so that no list of an
-- account's files can walk it in their order and filter by the
-- account). created is microseconds since the Unix epoch, as the
-- records' times; track is the JSON of the measured track, NULL when
-- the file holds none. The text columns keep the database's collation,
-- as refs' do: the purge compares a file's account and id with the key
-- of refs_to.
CREATE TABLE IF NOT EXISTS files (
    account TEXT NOT NULL,
    id      TEXT NOT NULL PRIMARY KEY,
    name    TEXT NOT NULL,
    type    TEXT NOT NULL,
    size    BIGINT NOT NULL,
    sha256  TEXT NOT NULL,
    width   INTEGER NOT NULL,
    height  INTEGER NOT NULL,
    track   TEXT,
    created BIGINT NOT NULL
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS files_sha256 ON files ((account || '/' || sha256));
--bun:split
CREATE INDEX IF NOT EXISTS files_list ON files (account, created DESC, id DESC);
--bun:split
CREATE INDEX IF NOT EXISTS files_type ON files ((account || '/' || type), created DESC, id DESC);
--bun:split
CREATE INDEX IF NOT EXISTS files_created ON files ((created + 0), id);
