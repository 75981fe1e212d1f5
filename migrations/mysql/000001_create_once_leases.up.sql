-- Machine-ID lease table for github.com/once-go/once/lease/sqllease (MySQL, MariaDB).
-- Same columns as the Elixir NoNoncense lease table. expires_at is a DATETIME(6)
-- holding UTC (DATETIME is never converted by the session time_zone; the
-- strategy refuses TIMESTAMP, which is). The Go strategy reads the clock as
-- UTC_TIMESTAMP(6). The Elixir library uses CURRENT_TIMESTAMP in the server's
-- default time zone: a table shared with it needs that default to be UTC
-- (default_time_zone = '+00:00'); the Go strategy refuses a shared table otherwise.
CREATE TABLE IF NOT EXISTS once_leases (
    id SMALLINT NOT NULL PRIMARY KEY,
    token VARBINARY(16) NULL,
    expires_at DATETIME(6) NOT NULL,
    lock_version INTEGER NOT NULL DEFAULT 0
);

-- One row per machine ID 0..511 (8 x 8 x 8), free since 1970; existing rows are kept.
INSERT IGNORE INTO once_leases (id, token, expires_at, lock_version)
SELECT a.n + 8 * b.n + 64 * c.n, NULL, '1970-01-01 00:00:00.000000', 0
FROM (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
      UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) AS a
CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
      UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) AS b
CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
      UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) AS c;
