// Package sqllease leases machine IDs from a table in the application's own
// SQL database, through its *sql.DB: PostgreSQL, MySQL/MariaDB or SQLite.
// It implements [lease.Strategy] (and [lease.Reclaimer]) for the lease
// manager in package lease.
//
// # Table
//
// Create the table with [migrations.Apply] (or the embedded golang-migrate
// files, or `once lease migrate`): 512 rows, one per machine ID, with the
// columns of the Elixir NoNoncense lease table, so both libraries can share
// it (Options.Table = "no_noncense_leases"):
//
//	id SMALLINT PRIMARY KEY, token (16 bytes), expires_at (UTC, µs), lock_version INTEGER
//
// # Clock
//
// One clock decides: the database's, in UTC, read once per statement —
// PostgreSQL statement_timestamp() AT TIME ZONE 'UTC', MySQL
// UTC_TIMESTAMP(6), SQLite strftime(..., 'now') — so neither the session
// time zone, nor DST, nor the application hosts' clocks matter. Timestamps
// are read back as text, independent of drivers' time decoding. On SQLite,
// which has no timestamp type, expires_at is TEXT in exactly one format,
// 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (fixed width, so text order is time order;
// SQLite's own clock has millisecond resolution); rows whose value is not
// in that format are never treated as free.
//
// # Statements
//
// Acquire reads up to Options.Candidates rows with expires_at < now, in ID
// order from a random start (wrapping around), then claims one with
//
//	UPDATE t SET expires_at = now + d, token = :new, lock_version = lock_version + 1
//	 WHERE id = :id AND lock_version = :seen AND expires_at < now
//
// (one row updated = ours). No free row is [lease.ErrExhausted]; every
// candidate claimed by a racing contender first is [lease.ErrConflict].
// Renew sets expires_at = now + d and Release sets expires_at = now, both
// WHERE id = :id AND token = :token; no row matched on Renew is
// [lease.ErrLost], on Release it is harmless. Every write bumps
// lock_version. All statements are single autocommit statements.
//
// Lease.Token carries the 16-byte token as 32 hex digits. Lease.TTL is d
// rounded up to whole microseconds, as stored. Lease.PrevExpiry is the
// row's expires_at before the claim (zero if the row was never held), for
// the manager's hand-off guard; Lease.CoordinatorNow is the database's
// clock at the claim (on MySQL, which lacks UPDATE ... RETURNING, at the
// candidate query just before; zero after a MySQL renewal).
//
// # Errors
//
// Errors the server gives for a statement that can never work — missing
// table or column, permission denied, syntax, unknown database, rejected
// credentials — are [lease.ErrConfig], with a hint to run the migrations
// where that applies. Everything else is [lease.ErrRetry]: connection
// failures, dead ports, a closed *sql.DB, timeouts and ended contexts
// (which stay matchable with errors.Is), pool exhaustion, serialization
// failures, deadlocks, lock timeouts, SQLITE_BUSY. Drivers are recognised
// without importing them. A claim whose reply was lost is released in the
// background, so an unknown outcome does not hold an ID until it expires.
//
// On SQLite, whose busy wait ignores contexts, a call with a deadline runs
// on one connection whose busy_timeout is lowered to the time left and
// restored afterwards. Keep SQLite pools small (one writer at a time).
package sqllease
