-- Webhooks (DECISIONS §18) and their delivery log. A webhook belongs to
-- an account and acts for one of its users (username); events is the
-- JSON array of its event names; secret signs its messages, and
-- previous_secret, the one a change replaced, signs beside it until
-- previous_until; feed_cursor is the position of the account's changes
-- feed up to which deliveries were made (compared and set by whoever
-- makes them). position numbers the webhooks in the order they were
-- made (one more than the highest at its insert), so that webhooks made
-- within one clock tick still list in that order: webhooks_list lists an
-- account's webhooks oldest first, webhooks_position finds the highest.
--
-- A delivery is one change to one webhook, its id the message id (the
-- same at every attempt). (webhook, change_seq, change_id) is the
-- change's feed cursor, unique: a change materialized twice makes one
-- delivery; the same index lists a webhook's log newest first. The
-- partial indexes hold the pending deliveries only: deliveries_due
-- finds the due ones, deliveries_record tells whether a record has an
-- earlier pending delivery (one record's messages go in order). A claim
-- is claimed_by until claimed_until; give_up is when a failed attempt
-- no longer gets another (0 until the first attempt sets it).
-- deliveries_finished serves the purge of the log. Times are microseconds since the Unix epoch.
CREATE TABLE IF NOT EXISTS webhooks (
    id              TEXT NOT NULL PRIMARY KEY,
    account         TEXT NOT NULL,
    url             TEXT NOT NULL,
    events          TEXT NOT NULL,
    username        TEXT NOT NULL,
    secret          TEXT NOT NULL,
    previous_secret TEXT NOT NULL,
    previous_until  BIGINT,
    enabled         BOOLEAN NOT NULL,
    disabled_reason TEXT NOT NULL,
    failed_in_row   INTEGER NOT NULL,
    feed_cursor     TEXT NOT NULL,
    created         BIGINT NOT NULL,
    updated         BIGINT NOT NULL,
    position        BIGINT NOT NULL
);
--bun:split
CREATE INDEX IF NOT EXISTS webhooks_list ON webhooks (account, created, position);
--bun:split
CREATE INDEX IF NOT EXISTS webhooks_position ON webhooks (position);
--bun:split
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id            TEXT NOT NULL PRIMARY KEY,
    webhook       TEXT NOT NULL,
    change_seq    BIGINT NOT NULL,
    change_id     BIGINT NOT NULL,
    kind          TEXT NOT NULL,
    record_id     TEXT NOT NULL,
    op            TEXT NOT NULL,
    rev           BIGINT NOT NULL,
    change_time   BIGINT NOT NULL,
    status        TEXT NOT NULL,
    attempts      INTEGER NOT NULL,
    next_attempt  BIGINT NOT NULL,
    give_up       BIGINT NOT NULL,
    claimed_by    TEXT NOT NULL,
    claimed_until BIGINT,
    last_status   INTEGER NOT NULL,
    last_error    TEXT NOT NULL,
    response      TEXT NOT NULL,
    created       BIGINT NOT NULL,
    finished      BIGINT
);
--bun:split
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_change ON webhook_deliveries (webhook, change_seq, change_id);
--bun:split
CREATE INDEX IF NOT EXISTS deliveries_due ON webhook_deliveries (next_attempt) WHERE status = 'pending';
--bun:split
CREATE INDEX IF NOT EXISTS deliveries_record ON webhook_deliveries (webhook, kind, record_id, change_seq, change_id)
    WHERE status = 'pending';
--bun:split
CREATE INDEX IF NOT EXISTS deliveries_finished ON webhook_deliveries (finished) WHERE status <> 'pending';
