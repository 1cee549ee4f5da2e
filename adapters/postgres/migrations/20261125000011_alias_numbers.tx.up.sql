-- Every alias split into a base and a number: "/lake-12" is "/lake" and
-- 12; an alias that does not end in "-N" (N from 2, at most 18 digits, no
-- leading zero) is its own base with number 1. Both are computed from the
-- alias by PostgreSQL (so every row has them, whoever wrote it; existing
-- rows are filled as the table is rewritten) and indexed, so the next
-- number of a base is one look-up: the highest n of (account, kind, lang,
-- base). The rule is cms.SplitAlias's.
ALTER TABLE aliases
    ADD COLUMN IF NOT EXISTS base TEXT GENERATED ALWAYS AS (
        CASE WHEN alias ~ '-[1-9][0-9]{0,17}$' AND alias !~ '-1$'
        THEN regexp_replace(alias, '-[0-9]+$', '')
        ELSE alias END) STORED,
    ADD COLUMN IF NOT EXISTS n BIGINT GENERATED ALWAYS AS (
        CASE WHEN alias ~ '-[1-9][0-9]{0,17}$' AND alias !~ '-1$'
        THEN CAST(substring(alias from '-([0-9]+)$') AS BIGINT)
        ELSE 1 END) STORED;
--bun:split
CREATE INDEX IF NOT EXISTS aliases_number ON aliases (account, kind, lang, base, n);
