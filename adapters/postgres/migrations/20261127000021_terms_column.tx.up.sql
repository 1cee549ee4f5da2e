-- Beside each record, the column terms holds its own index terms (all
-- but the languages without a title) as one string (cms.JoinTerms): a
-- list tests the record it reads for a word with strpos, with no other
-- look-up, and a write knows which term rows to change and changes only
-- those. It replaces the index terms_record (migration 19), so a term row
-- goes into one b-tree instead of two. Filled for the records stored
-- before it by the migration in Go that follows (20261127000022).
ALTER TABLE records ADD COLUMN IF NOT EXISTS terms TEXT NOT NULL DEFAULT '';
--bun:split
DROP INDEX IF EXISTS terms_record;
