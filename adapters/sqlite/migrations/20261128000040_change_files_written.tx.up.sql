-- The files a change's document names are written by the statement after
-- the changes (nameChangeFiles), not by a row trigger: an INSERT on a
-- table with a trigger needs a statement journal (every page it touches
-- copied once more) and, as an INSERT ... SELECT, stages its rows in a
-- temporary table first; a change record cost more in them than in its
-- own rows (docs/performance.md). The triggers on a document's removal
-- and a change's purge stay: those writes are rare.
DROP TRIGGER IF EXISTS changes_name_files;
