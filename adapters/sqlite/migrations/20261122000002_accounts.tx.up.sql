-- Accounts, users, login throttling, settings and refresh tokens.
CREATE TABLE IF NOT EXISTS accounts (
    id    TEXT PRIMARY KEY,
    lang  TEXT NOT NULL,
    langs TEXT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS users (
    name          TEXT PRIMARY KEY,
    account       TEXT NOT NULL REFERENCES accounts (id),
    password_hash TEXT NOT NULL,
    perms         TEXT NOT NULL,
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    changed_at    INTEGER NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS users_account ON users (account, name);
--bun:split
CREATE TABLE IF NOT EXISTS login_failures (
    username TEXT NOT NULL,
    at       INTEGER NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS login_failures_user ON login_failures (username, at);
--bun:split
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS refresh_tokens (
    hash           BLOB PRIMARY KEY,
    family         TEXT NOT NULL,
    parent         BLOB,
    username       TEXT NOT NULL,
    account        TEXT NOT NULL,
    issued         INTEGER NOT NULL,
    expires        INTEGER NOT NULL,
    family_expires INTEGER NOT NULL,
    used_at        INTEGER,
    revoked_at     INTEGER
);
--bun:split
CREATE INDEX IF NOT EXISTS refresh_tokens_family ON refresh_tokens (family);
--bun:split
CREATE INDEX IF NOT EXISTS refresh_tokens_user ON refresh_tokens (username);
--bun:split
CREATE INDEX IF NOT EXISTS refresh_tokens_expiry ON refresh_tokens (family_expires);
