-- The files of a change record (migration 28) are found through the key
-- of refs, by the change's record: the trigger joined refs by the file
-- kind, and the planner of a table without statistics, or with those of
-- a table analyzed while small, read the whole of refs_to for the files
-- of each write's changes (22 ms a write among 1,000,000 Resources,
-- growing with the references). The kind is tested on each reference
-- found, as an expression no index holds.
CREATE OR REPLACE FUNCTION changes_name_files() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_files (change_id, account, file_id)
    SELECT a.id, a.account, r.to_id FROM added a CROSS JOIN LATERAL (
        SELECT to_id FROM refs
        WHERE account = (a.account COLLATE "default") AND from_kind = a.kind AND from_id = a.record_id
            AND to_kind || '' = 'file'
        OFFSET 0) AS r
    WHERE a.document IS NOT NULL
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
