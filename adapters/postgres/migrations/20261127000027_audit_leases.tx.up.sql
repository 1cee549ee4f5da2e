-- The audit list (DECISIONS §18): who changed an account's users,
-- permissions, languages and webhooks, when, and what. id orders an
-- account's entries (newest highest); audit_list reads them newest first
-- from a place. at is microseconds since the Unix epoch, as the records'
-- times; username is "" for the service or an operator's command.
CREATE TABLE IF NOT EXISTS audit (
    id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account  TEXT NOT NULL,
    at       BIGINT NOT NULL,
    username TEXT NOT NULL,
    action   TEXT NOT NULL,
    target   TEXT NOT NULL,
    detail   TEXT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS audit_list ON audit (account, id);
--bun:split
-- Leases: named, time-bounded claims one instance holds at a time (a
-- subscription's runner). expires is microseconds since the Unix epoch
-- by the database's clock, which every instance shares.
CREATE TABLE IF NOT EXISTS leases (
    name    TEXT NOT NULL PRIMARY KEY,
    owner   TEXT NOT NULL,
    expires BIGINT NOT NULL
);
--bun:split
-- Small named cursors kept beside the leases (a subscription's place in
-- the changes feed).
CREATE TABLE IF NOT EXISTS cursors (
    name  TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);
