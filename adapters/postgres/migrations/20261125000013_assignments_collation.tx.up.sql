-- Assignment ids compare in byte order (COLLATE "C"), as records' do: a
-- record query reads a Resource's or Map's assignments with
-- assignments.account = records.account AND assignments.resource_id =
-- records.id, and with two collations there PostgreSQL could use no index
-- of assignments for it (a scan of the table for every record read).
ALTER TABLE assignments
    ALTER COLUMN account TYPE TEXT COLLATE "C",
    ALTER COLUMN map_id TYPE TEXT COLLATE "C",
    ALTER COLUMN resource_id TYPE TEXT COLLATE "C";
