-- The index terms of every record (cms.RecordIndex.Terms): the folded
-- words of its id and titles that a search looks up by prefix, the title
-- sort keys, the languages without a title, the type, the categories and
-- the unpublished mark, one row each. The key reads a term's records in
-- id order (a search word's, a filter's) and a range of terms in (term,
-- id) order (the titles of a language, sorted); terms_record holds a
-- record's own terms together, to test one record for a term and to
-- delete them with it: its key leads with the record's whole key, so no
-- statement can take it to read the terms of more than one record. Filled for the records stored before it by the
-- migration in Go that follows (20261127000020).
CREATE TABLE IF NOT EXISTS terms (
    account TEXT NOT NULL,
    kind    TEXT NOT NULL,
    term    TEXT NOT NULL,
    id      TEXT NOT NULL,
    PRIMARY KEY (account, kind, term, id)
) WITHOUT ROWID;
--bun:split
CREATE INDEX IF NOT EXISTS terms_record ON terms ((account || '/' || kind || '/' || id), term);
