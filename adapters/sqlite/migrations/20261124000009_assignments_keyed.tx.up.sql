-- Assignments are kept in their key's b-tree (WITHOUT ROWID), as aliases
-- and references are since migration 5: a row then goes into three b-trees
-- instead of four (a rowid table, its key index and two list indexes).
-- A batch of 10,000 Resources on two Maps of each role writes 40,000.
-- The table is rebuilt, a step that is safe to run again.
CREATE TABLE IF NOT EXISTS assignments_keyed (
    account      TEXT NOT NULL,
    map_id       TEXT NOT NULL,
    resource_id  TEXT NOT NULL,
    role         TEXT NOT NULL,
    map_pos      INTEGER NOT NULL,
    resource_pos INTEGER NOT NULL,
    PRIMARY KEY (account, map_id, resource_id)
) WITHOUT ROWID;
--bun:split
INSERT OR IGNORE INTO assignments_keyed SELECT account, map_id, resource_id, role, map_pos, resource_pos FROM assignments;
--bun:split
DROP TABLE assignments;
--bun:split
ALTER TABLE assignments_keyed RENAME TO assignments;
--bun:split
CREATE INDEX IF NOT EXISTS assignments_resource ON assignments (account, resource_id, resource_pos);
--bun:split
CREATE INDEX IF NOT EXISTS assignments_map_pos ON assignments (account, map_id, role, map_pos);
