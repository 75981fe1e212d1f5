-- Machine-ID lease table for github.com/once-go/once/lease/sqllease (SQLite).
-- Same columns as the Elixir NoNoncense lease table. SQLite has no timestamp
-- type: expires_at is TEXT in exactly one fixed-width ISO-8601 UTC format,
-- 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (27 characters), so text order is time order.
-- Every writer must use this format; the strategy writes and compares only it.
CREATE TABLE IF NOT EXISTS once_leases (
    id SMALLINT PRIMARY KEY,
    token BLOB,
    expires_at TEXT NOT NULL,
    lock_version INTEGER NOT NULL DEFAULT 0
);

-- One row per machine ID 0..511 (8 x 8 x 8), free since 1970; existing rows are kept.
INSERT OR IGNORE INTO once_leases (id, token, expires_at, lock_version)
SELECT a.n + 8 * b.n + 64 * c.n, NULL, '1970-01-01T00:00:00.000000Z', 0
FROM (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
      UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) AS a
CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
      UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) AS b
CROSS JOIN (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3
      UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7) AS c;
