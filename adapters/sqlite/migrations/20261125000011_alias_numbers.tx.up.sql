-- Every alias split into a base and a number: "/lake-12" is "/lake" and
-- 12; an alias that does not end in "-N" (N from 2, at most 18 digits, no
-- leading zero) is its own base with number 1. Both are computed from the
-- alias by SQLite (so every row has them, whoever wrote it) and indexed,
-- so the next number of a base is one look-up: the highest n of
-- (account, kind, lang, base). The rule is cms.SplitAlias's.
ALTER TABLE aliases ADD COLUMN base TEXT GENERATED ALWAYS AS (
    CASE WHEN substr(rtrim(alias, '0123456789'), -1) = '-'
          AND length(alias) - length(rtrim(alias, '0123456789')) BETWEEN 1 AND 18
          AND substr(alias, length(rtrim(alias, '0123456789')) + 1, 1) <> '0'
          AND substr(alias, length(rtrim(alias, '0123456789')) + 1) <> '1'
    THEN substr(alias, 1, length(rtrim(alias, '0123456789')) - 1)
    ELSE alias END) VIRTUAL;
--bun:split
ALTER TABLE aliases ADD COLUMN n INTEGER GENERATED ALWAYS AS (
    CASE WHEN substr(rtrim(alias, '0123456789'), -1) = '-'
          AND length(alias) - length(rtrim(alias, '0123456789')) BETWEEN 1 AND 18
          AND substr(alias, length(rtrim(alias, '0123456789')) + 1, 1) <> '0'
          AND substr(alias, length(rtrim(alias, '0123456789')) + 1) <> '1'
    THEN CAST(substr(alias, length(rtrim(alias, '0123456789')) + 1) AS INTEGER)
    ELSE 1 END) VIRTUAL;
--bun:split
CREATE INDEX IF NOT EXISTS aliases_number ON aliases (account, kind, lang, base, n);
