-- The files a change's document names are noted by the statement that
-- writes the changes (a second INSERT of the same statement, fed by the
-- first's RETURNING), not by a statement trigger: its transition table
-- and PL/pgSQL call cost a create onto two Maps about a tenth of its
-- time (docs/performance.md). The triggers on a document's removal and
-- a change's purge stay.
DROP TRIGGER IF EXISTS changes_name_files ON changes;
--bun:split
DROP FUNCTION IF EXISTS changes_name_files();
