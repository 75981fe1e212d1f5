-- Machine-ID lease table for github.com/once-go/once/lease/sqllease (PostgreSQL).
-- Same columns as the Elixir NoNoncense lease table. expires_at holds UTC
-- wall-clock time (timestamp without time zone, microseconds; the strategy
-- refuses timestamptz, which each session's time zone converts). The Go
-- strategy reads the clock as statement_timestamp() AT TIME ZONE 'UTC', so for
-- Go processes the session time zone does not matter. The Elixir library uses
-- CURRENT_TIMESTAMP in the database's default time zone: a table shared with it
-- needs that default to be UTC (ALTER DATABASE <db> SET timezone = 'UTC'); the
-- Go strategy refuses a shared table otherwise.
CREATE TABLE IF NOT EXISTS once_leases (
    id SMALLINT PRIMARY KEY,
    token BYTEA,
    expires_at TIMESTAMP(6) WITHOUT TIME ZONE NOT NULL,
    lock_version INTEGER NOT NULL DEFAULT 0
);

-- One row per machine ID 0..511, free since 1970; existing rows are kept.
INSERT INTO once_leases (id, token, expires_at, lock_version)
SELECT n, NULL, TIMESTAMP '1970-01-01 00:00:00', 0
FROM generate_series(0, 511) AS n
ON CONFLICT (id) DO NOTHING;
