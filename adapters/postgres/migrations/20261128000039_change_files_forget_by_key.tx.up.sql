-- The files of removed or purged change records (migration 28) are found
-- through the key of change_files, one look-up a change: on a table
-- without statistics the planner counts each change's files as 1/200 of
-- the table and read change_files whole, hashed against the changes, for
-- the files of one deleted record's changes (the same trap as the file
-- trigger of migration 38).
CREATE OR REPLACE FUNCTION changes_forget_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM change_files WHERE ctid = ANY(ARRAY(
        SELECT f.ctid FROM gone CROSS JOIN LATERAL (
            SELECT ctid FROM change_files WHERE change_id = gone.id OFFSET 0) AS f
        WHERE gone.document IS NULL));
    RETURN NULL;
END $$;
--bun:split
CREATE OR REPLACE FUNCTION changes_purge_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM change_files WHERE ctid = ANY(ARRAY(
        SELECT f.ctid FROM gone CROSS JOIN LATERAL (
            SELECT ctid FROM change_files WHERE change_id = gone.id OFFSET 0) AS f));
    RETURN NULL;
END $$;
