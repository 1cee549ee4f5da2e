-- Two indexes fewer on the change records, two of the WAL frames each
-- write transaction of changes wrote (docs/performance.md): the feed of
-- every kind reads each kind's walk of changes_kind, merged (as the feed
-- of some kinds did), and the purge walks the changes in id order, which
-- is their order of time closely enough: it stops at the first change
-- dated at or after its limit. The rows stay as they are.
DROP INDEX IF EXISTS changes_feed;
--bun:split
DROP INDEX IF EXISTS changes_time;
