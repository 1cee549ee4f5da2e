-- The update time index ends with an expression of the id, not the id:
-- a record read by id (account, kind and id equal) could otherwise take
-- it, its id condition a filter over a walk of the whole index, which a
-- planner without statistics, or with those of a table analyzed while
-- small, rated as cheap as the primary key. The admin's lists sorted by
-- last update order by the same expression (the same order as the id's).
DROP INDEX IF EXISTS records_updated;
--bun:split
CREATE INDEX records_updated ON records ((account || '/' || kind), updated_at, (id || ''));
