-- Accounts, users, login throttling, settings and refresh tokens.
CREATE TABLE IF NOT EXISTS accounts (
    id    TEXT COLLATE "C" PRIMARY KEY,
    lang  TEXT NOT NULL,
    langs TEXT NOT NULL
);
--bun:split
CREATE TABLE IF NOT EXISTS users (
    name          TEXT COLLATE "C" PRIMARY KEY,
    account       TEXT NOT NULL REFERENCES accounts (id),
    password_hash TEXT NOT NULL,
    perms         TEXT NOT NULL,
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    changed_at    BIGINT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS users_account ON users (account, name);
--bun:split
CREATE TABLE IF NOT EXISTS login_failures (
    username TEXT NOT NULL,
    at       BIGINT NOT NULL
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
    hash           BYTEA PRIMARY KEY,
    family         TEXT NOT NULL,
    parent         BYTEA,
    username       TEXT NOT NULL,
    account        TEXT NOT NULL,
    issued         BIGINT NOT NULL,
    expires        BIGINT NOT NULL,
    family_expires BIGINT NOT NULL,
    used_at        BIGINT,
    revoked_at     BIGINT
);
--bun:split
CREATE INDEX IF NOT EXISTS refresh_tokens_family ON refresh_tokens (family);
--bun:split
CREATE INDEX IF NOT EXISTS refresh_tokens_user ON refresh_tokens (username);
--bun:split
CREATE INDEX IF NOT EXISTS refresh_tokens_expiry ON refresh_tokens (family_expires);
