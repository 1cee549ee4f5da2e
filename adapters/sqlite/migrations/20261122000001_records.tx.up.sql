-- Records, their aliases, the references their documents make and the
-- Resource-Map assignments. Ids sort in byte order (BINARY).
CREATE TABLE IF NOT EXISTS records (
    account           TEXT NOT NULL,
    kind              TEXT NOT NULL,
    id                TEXT NOT NULL,
    published         BOOLEAN NOT NULL,
    updated_at        INTEGER NOT NULL,
    lat               REAL,
    lon               REAL,
    stats_access      INTEGER NOT NULL DEFAULT 0,
    stats_last_access INTEGER,
    doc               TEXT NOT NULL,
    PRIMARY KEY (account, kind, id)
);
--bun:split
CREATE INDEX IF NOT EXISTS records_geo ON records (account, kind, lat, lon);
--bun:split
CREATE INDEX IF NOT EXISTS records_updated ON records (account, kind, updated_at);
--bun:split
CREATE TABLE IF NOT EXISTS aliases (
    account   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    lang      TEXT NOT NULL,
    alias     TEXT NOT NULL,
    record_id TEXT NOT NULL,
    PRIMARY KEY (account, kind, lang, alias)
);
--bun:split
CREATE INDEX IF NOT EXISTS aliases_record ON aliases (account, kind, record_id);
--bun:split
CREATE TABLE IF NOT EXISTS refs (
    account   TEXT NOT NULL,
    from_kind TEXT NOT NULL,
    from_id   TEXT NOT NULL,
    field     TEXT NOT NULL,
    to_kind   TEXT NOT NULL,
    to_id     TEXT NOT NULL,
    single    BOOLEAN NOT NULL,
    PRIMARY KEY (account, from_kind, from_id, field, to_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS refs_to ON refs (account, to_id, to_kind);
--bun:split
CREATE TABLE IF NOT EXISTS assignments (
    account      TEXT NOT NULL,
    map_id       TEXT NOT NULL,
    resource_id  TEXT NOT NULL,
    role         TEXT NOT NULL,
    map_pos      INTEGER NOT NULL,
    resource_pos INTEGER NOT NULL,
    PRIMARY KEY (account, map_id, resource_id)
);
--bun:split
CREATE INDEX IF NOT EXISTS assignments_resource ON assignments (account, resource_id, resource_pos);
