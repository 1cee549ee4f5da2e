-- Every secondary index of the record tables leads with an expression of
-- its own instead of the columns its key shares with the primary key, as
-- on PostgreSQL (where a planner without statistics may take any index
-- whose leading columns a statement constrains): a statement meant for a
-- secondary index spells that index's expression, so both databases run
-- the same statements and a key look-up can use none but the key. The
-- expressions join ids that never hold the separators ('/' and '|').
DROP INDEX IF EXISTS records_updated;
--bun:split
CREATE INDEX records_updated ON records ((account || '/' || kind), updated_at);
--bun:split
DROP INDEX IF EXISTS records_geo;
--bun:split
CREATE INDEX records_geo ON records ((account || '|' || kind), lat, lon);
--bun:split
DROP INDEX IF EXISTS aliases_record;
--bun:split
CREATE INDEX aliases_record ON aliases ((account || '/' || kind), record_id);
--bun:split
DROP INDEX IF EXISTS aliases_number;
--bun:split
CREATE INDEX aliases_number ON aliases ((account || '/' || kind || '/' || lang), base, n);
--bun:split
DROP INDEX IF EXISTS refs_to;
--bun:split
CREATE INDEX refs_to ON refs ((account || '/' || to_id), to_kind);
--bun:split
DROP INDEX IF EXISTS assignments_resource;
--bun:split
CREATE INDEX assignments_resource ON assignments ((account || '/' || resource_id), resource_pos);
--bun:split
DROP INDEX IF EXISTS assignments_map_pos;
--bun:split
CREATE INDEX assignments_map_pos ON assignments ((account || '/' || map_id), role, map_pos);
