-- The index tables hold nothing but their key: WITHOUT ROWID keeps each row
-- once, in its key's b-tree, instead of a rowid table plus a key index, so
-- writing an alias or a reference updates one b-tree fewer. The tables are
-- rebuilt, a step that is safe to run again.
CREATE TABLE IF NOT EXISTS aliases_keyed (
    account   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    lang      TEXT NOT NULL,
    alias     TEXT NOT NULL,
    record_id TEXT NOT NULL,
    PRIMARY KEY (account, kind, lang, alias)
) WITHOUT ROWID;
--bun:split
INSERT OR IGNORE INTO aliases_keyed SELECT account, kind, lang, alias, record_id FROM aliases;
--bun:split
DROP TABLE aliases;
--bun:split
ALTER TABLE aliases_keyed RENAME TO aliases;
--bun:split
CREATE INDEX IF NOT EXISTS aliases_record ON aliases (account, kind, record_id);
--bun:split
CREATE TABLE IF NOT EXISTS refs_keyed (
    account   TEXT NOT NULL,
    from_kind TEXT NOT NULL,
    from_id   TEXT NOT NULL,
    field     TEXT NOT NULL,
    to_kind   TEXT NOT NULL,
    to_id     TEXT NOT NULL,
    single    BOOLEAN NOT NULL,
    PRIMARY KEY (account, from_kind, from_id, field, to_id)
) WITHOUT ROWID;
--bun:split
INSERT OR IGNORE INTO refs_keyed SELECT account, from_kind, from_id, field, to_kind, to_id, single FROM refs;
--bun:split
DROP TABLE refs;
--bun:split
ALTER TABLE refs_keyed RENAME TO refs;
--bun:split
CREATE INDEX IF NOT EXISTS refs_to ON refs (account, to_id, to_kind);
