-- The update time index ends with the id: the admin's lists sorted by
-- last update page by (updated_at, id), the id breaking the ties of a
-- batch's records, which share their time, and read it in that order
-- from the index, forwards or backwards, from where the page before
-- stopped.
DROP INDEX IF EXISTS records_updated;
--bun:split
CREATE INDEX records_updated ON records ((account || '/' || kind), updated_at, id);
