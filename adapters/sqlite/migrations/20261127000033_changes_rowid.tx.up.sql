-- The change records keep their ids without AUTOINCREMENT, which wrote
-- sqlite_sequence's page at every write transaction (one of the 13 WAL
-- frames the change records add to a create of a Resource on two Maps,
-- docs/performance.md). Ids still never go back: a new row takes the
-- highest id plus one, and the row of the highest id is never removed.
-- The purge (PurgeChanges) keeps each record's newest change, and the
-- highest id is the newest change of its record; nothing else deletes
-- changes. Same columns, indexes (migrations 25 and 29) and file
-- triggers (migration 28); the rows are copied with their ids.
CREATE TABLE changes_rowid (
    id        INTEGER PRIMARY KEY,
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
INSERT INTO changes_rowid (id, account, kind, record_id, rev, op, time, author, document, lists)
SELECT id, account, kind, record_id, rev, op, time, author, document, lists FROM changes ORDER BY id;
--bun:split
-- Its indexes and triggers go with it; change_files stays, keyed by the
-- same ids.
DROP TABLE changes;
--bun:split
ALTER TABLE changes_rowid RENAME TO changes;
--bun:split
CREATE INDEX changes_feed ON changes (account, id);
--bun:split
CREATE UNIQUE INDEX changes_rev ON changes ((account || '/' || kind || '/' || record_id), rev);
--bun:split
CREATE INDEX changes_time ON changes (time, id);
--bun:split
CREATE INDEX changes_kind ON changes ((account || '/' || kind), id);
--bun:split
CREATE TRIGGER changes_name_files AFTER INSERT ON changes WHEN NEW.document IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO change_files (change_id, account, file_id)
    SELECT NEW.id, NEW.account, to_id FROM refs
    WHERE account = NEW.account AND from_kind = NEW.kind AND from_id = NEW.record_id AND to_kind = 'file';
END;
--bun:split
CREATE TRIGGER changes_forget_files AFTER UPDATE OF document ON changes WHEN NEW.document IS NULL
BEGIN
    DELETE FROM change_files WHERE change_id = NEW.id;
END;
--bun:split
CREATE TRIGGER changes_purge_files AFTER DELETE ON changes
BEGIN
    DELETE FROM change_files WHERE change_id = OLD.id;
END;
