-- A touched record's change (cms.ChangeRef.Touched: only its
-- timeLastUpdate or its lists moved with another record's write) keeps
-- no copy of the document, which the touch left as it was: doc_rev
-- names the record's newest earlier revision holding it, and the reads
-- of documents take it from there. NULL for every other change (those
-- before this migration included), which holds its own document or none.
-- The purge keeps a revision while the revision after it points at it;
-- a delete clears doc_rev with the documents.
ALTER TABLE changes ADD COLUMN IF NOT EXISTS doc_rev BIGINT;
