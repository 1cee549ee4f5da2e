-- The files the kept revisions name (DECISIONS §16: a file named by a
-- kept revision is used, so restoring a revision finds its images).
-- Triggers keep it: a change written with its document takes the file
-- references its record holds at that moment (the refs rows of the same
-- transaction); a change whose document is removed (its record deleted)
-- or which is purged lets them go. change_files_file answers "does any
-- kept revision name this file" by the file's key, as refs_to does for
-- records.
CREATE TABLE IF NOT EXISTS change_files (
    change_id INTEGER NOT NULL,
    account   TEXT NOT NULL,
    file_id   TEXT NOT NULL,
    PRIMARY KEY (change_id, file_id)
) WITHOUT ROWID;
--bun:split
CREATE INDEX IF NOT EXISTS change_files_file ON change_files ((account || '/' || file_id));
--bun:split
CREATE TRIGGER IF NOT EXISTS changes_name_files AFTER INSERT ON changes WHEN NEW.document IS NOT NULL
BEGIN
    INSERT OR IGNORE INTO change_files (change_id, account, file_id)
    SELECT NEW.id, NEW.account, to_id FROM refs
    WHERE account = NEW.account AND from_kind = NEW.kind AND from_id = NEW.record_id AND to_kind = 'file';
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS changes_forget_files AFTER UPDATE OF document ON changes WHEN NEW.document IS NULL
BEGIN
    DELETE FROM change_files WHERE change_id = NEW.id;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS changes_purge_files AFTER DELETE ON changes
BEGIN
    DELETE FROM change_files WHERE change_id = OLD.id;
END;
