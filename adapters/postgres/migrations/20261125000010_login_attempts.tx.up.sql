-- Login throttling per username and client address (docs/auth.md). An
-- attempt is stored as a failure before its password is checked, with
-- the address it came from; a success deletes that pair's failures and
-- keeps the address as known to the user. The old table had no address;
-- its failures only matter for 15 minutes, so they are dropped.
CREATE TABLE IF NOT EXISTS login_attempts (
    username TEXT NOT NULL,
    address  TEXT NOT NULL,
    at       BIGINT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS login_attempts_address ON login_attempts (username, address, at);
--bun:split
CREATE INDEX IF NOT EXISTS login_attempts_user ON login_attempts (username, at);
--bun:split
CREATE TABLE IF NOT EXISTS login_known_addresses (
    username TEXT NOT NULL,
    address  TEXT NOT NULL,
    at       BIGINT NOT NULL,
    PRIMARY KEY (username, address)
);
--bun:split
DROP TABLE IF EXISTS login_failures;
