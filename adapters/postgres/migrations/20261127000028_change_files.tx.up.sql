-- The files the kept revisions name (DECISIONS §16: a file named by a
-- kept revision is used, so restoring a revision finds its images).
-- Statement triggers keep it, once a statement however many changes it
-- writes: changes written with their documents take the file references
-- their records hold at that moment (the refs rows of the same
-- transaction); changes whose documents are removed (their record
-- deleted) or which are purged let them go. change_files_file answers
-- "does any kept revision name this file" by the file's key, as refs_to
-- does for records. refs.account keeps the database's collation and
-- changes.account is "C": the join names the one refs' key compares in.
CREATE TABLE IF NOT EXISTS change_files (
    change_id BIGINT NOT NULL,
    account   TEXT NOT NULL,
    file_id   TEXT NOT NULL,
    PRIMARY KEY (change_id, file_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS change_files_file ON change_files ((account || '/' || file_id));
--bun:split
CREATE OR REPLACE FUNCTION changes_name_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_files (change_id, account, file_id)
    SELECT a.id, a.account, r.to_id FROM added a JOIN refs r
        ON r.account = (a.account COLLATE "default") AND r.from_kind = a.kind AND r.from_id = a.record_id AND r.to_kind = 'file'
    WHERE a.document IS NOT NULL
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION changes_forget_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM change_files WHERE change_id IN (SELECT id FROM gone WHERE document IS NULL);
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION changes_purge_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM change_files WHERE change_id IN (SELECT id FROM gone);
    RETURN NULL;
END $$;
--bun:split
DROP TRIGGER IF EXISTS changes_name_files ON changes;
--bun:split
CREATE TRIGGER changes_name_files AFTER INSERT ON changes
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION changes_name_files();
--bun:split
DROP TRIGGER IF EXISTS changes_forget_files ON changes;
--bun:split
CREATE TRIGGER changes_forget_files AFTER UPDATE ON changes
    REFERENCING NEW TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION changes_forget_files();
--bun:split
DROP TRIGGER IF EXISTS changes_purge_files ON changes;
--bun:split
CREATE TRIGGER changes_purge_files AFTER DELETE ON changes
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION changes_purge_files();
