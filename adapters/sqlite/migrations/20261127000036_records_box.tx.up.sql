-- The location index is an R*Tree: a box of the map reads the records
-- inside it, not the whole band of latitudes it spans. Its third
-- dimension is the record's account and kind (a number of geo_scopes), so
-- a box of one account's Resources never descends into another's. The
-- R*Tree stores float32 boxes rounded outwards, so it may answer a record
-- just outside a box, never miss one inside: the exact test stays on the
-- record's row. Its rows are the records' rowids (kept by VACUUM, as every
-- write goes through the triggers, records' rowids never change under
-- them). Records without a location have no row: their writes run the
-- triggers' WHEN test only, and records_geo, which held every record,
-- goes. A trigger tests for its scope before adding it rather than
-- INSERT OR IGNORE: the conflict clause of the statement firing it (an
-- upsert's update) would take the place of the IGNORE.
DROP INDEX IF EXISTS records_geo;
--bun:split
CREATE TABLE IF NOT EXISTS geo_scopes (
    n   INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE
);
--bun:split
CREATE VIRTUAL TABLE IF NOT EXISTS records_box USING rtree(rid, scope_lo, scope_hi, lat_lo, lat_hi, lon_lo, lon_hi);
--bun:split
INSERT OR IGNORE INTO geo_scopes (key)
SELECT DISTINCT account || '|' || kind FROM records WHERE lat IS NOT NULL AND lon IS NOT NULL;
--bun:split
INSERT OR REPLACE INTO records_box
SELECT records.rowid, geo_scopes.n, geo_scopes.n, lat, lat, lon, lon
FROM records JOIN geo_scopes ON geo_scopes.key = records.account || '|' || records.kind
WHERE lat IS NOT NULL AND lon IS NOT NULL;
--bun:split
CREATE TRIGGER IF NOT EXISTS records_box_insert AFTER INSERT ON records
WHEN NEW.lat IS NOT NULL AND NEW.lon IS NOT NULL
BEGIN
    INSERT INTO geo_scopes (key) SELECT NEW.account || '|' || NEW.kind
    WHERE NOT EXISTS (SELECT 1 FROM geo_scopes WHERE key = NEW.account || '|' || NEW.kind);
    INSERT INTO records_box
    SELECT NEW.rowid, n, n, NEW.lat, NEW.lat, NEW.lon, NEW.lon FROM geo_scopes WHERE key = NEW.account || '|' || NEW.kind;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS records_box_update AFTER UPDATE OF lat, lon ON records
WHEN OLD.lat IS NOT NEW.lat OR OLD.lon IS NOT NEW.lon
BEGIN
    DELETE FROM records_box WHERE rid = OLD.rowid;
    INSERT INTO geo_scopes (key) SELECT NEW.account || '|' || NEW.kind
    WHERE NEW.lat IS NOT NULL AND NEW.lon IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM geo_scopes WHERE key = NEW.account || '|' || NEW.kind);
    INSERT INTO records_box
    SELECT NEW.rowid, n, n, NEW.lat, NEW.lat, NEW.lon, NEW.lon FROM geo_scopes
    WHERE key = NEW.account || '|' || NEW.kind AND NEW.lat IS NOT NULL AND NEW.lon IS NOT NULL;
END;
--bun:split
CREATE TRIGGER IF NOT EXISTS records_box_delete AFTER DELETE ON records
WHEN OLD.lat IS NOT NULL AND OLD.lon IS NOT NULL
BEGIN
    DELETE FROM records_box WHERE rid = OLD.rowid;
END;
