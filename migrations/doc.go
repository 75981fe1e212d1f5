// Package migrations creates and drops the machine-ID lease table that
// [github.com/once-go/once/lease/sqllease] uses, on PostgreSQL, MySQL/MariaDB
// and SQLite.
//
// The table has the columns of the Elixir NoNoncense lease table, so both
// libraries can share one table:
//
//	id           SMALLINT PRIMARY KEY   machine ID, 0..511, one row each
//	token        BYTEA | VARBINARY(16) | BLOB, 16 random bytes, NULL when never held
//	expires_at   UTC, microseconds, NOT NULL; 1970-01-01 when never held
//	lock_version INTEGER NOT NULL DEFAULT 0, bumped by every write
//	holder       VARCHAR(255) | TEXT, NULL: who holds the lease (sqllease writes it)
//
// expires_at is PostgreSQL TIMESTAMP(6) WITHOUT TIME ZONE, MySQL DATETIME(6)
// (neither is converted by the session time zone) and, on SQLite, which has
// no timestamp type, TEXT in one fixed-width ISO-8601 UTC format,
// 'YYYY-MM-DDTHH:MM:SS.ffffffZ', so that comparing the text compares the
// times.
//
// The holder column is nullable and unknown to the Elixir library, whose
// statements name their columns; it may be missing (sqllease then records
// no holder).
//
// [Apply] creates the table under any plain lowercase name (schema.name on
// PostgreSQL), fills it with its 512 rows and adds the holder column;
// running it again is harmless (it refills missing rows, leaves existing
// ones alone and adds the column only where it is missing). It refuses to
// fill a table whose id is not a unique key ([CheckKey]): there each
// inserted row would be a second lease on its machine ID. [Down] drops the
// table. Both use the SQL files that [FS] exposes in golang-migrate naming
// (postgres/, mysql/, sqlite/), written for the default table name
// once_leases, for applications that run their migrations with
// golang-migrate or a similar tool.
//
// The package uses only the standard library; the application supplies the
// *sql.DB and its driver.
package migrations
