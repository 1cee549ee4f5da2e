-- A Resource new to a Map goes to the end of the Map's list of its role:
-- this index finds that end without reading the list (a Map of 10,000
-- Resources made every assignment read all of them), and reads the list
-- in order.
CREATE INDEX IF NOT EXISTS assignments_map_pos ON assignments (account, map_id, role, map_pos);
