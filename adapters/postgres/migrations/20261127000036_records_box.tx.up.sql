-- The location index is a GiST index (core PostgreSQL: no extension): a
-- box of the map reads the records inside it, not the whole band of
-- latitudes it spans. A GiST index of points cannot lead with the
-- account and kind, so they are folded into the point: its latitude is
-- shifted by 1000 degrees for each of 65,536 buckets of their hash, and
-- a box of one account's Resources reads its bucket's records alone
-- (bunstore's geoPoint; the account and kind are tested on the row, for
-- the buckets two keys share). Records without a location have no entry
-- (the predicate, on the expression, is implied by a box's condition on
-- it, not by the tests of lat and lon a list by key makes: a planner never
-- walks the index whole for those), and records_geo, which held every
-- record, goes.
DROP INDEX IF EXISTS records_geo;
--bun:split
CREATE INDEX IF NOT EXISTS records_box ON records
USING gist (point(lon, lat + 1000 * (hashtext(account || '|' || kind) & 65535)))
WHERE point(lon, lat + 1000 * (hashtext(account || '|' || kind) & 65535)) IS NOT NULL;
