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
// plus an optional holder column ([migrations.HolderColumn]) in which the
// strategy records who holds each lease ([Options.Holder]).
//
// Before its first call a strategy checks the table ([Strategy.Check])
// and refuses (lease.ErrConfig, naming the setting and the fix):
//   - a column type it cannot read and write exactly. expires_at must be
//     a zone-free timestamp with microseconds: PostgreSQL timestamp(6)
//     without time zone, MySQL DATETIME(6), SQLite TEXT. A timestamptz or
//     MySQL TIMESTAMP column is converted by each session's time zone, and
//     sessions in different zones would hold one ID twice;
//   - a table whose id is not a unique key on its own (primary key or
//     unique index on id alone, no expression, no WHERE), or that holds
//     two rows for one ID ([migrations.CheckKey]): every row is a lease,
//     and a duplicate row is a second lease on the same machine ID. A
//     table made by CREATE TABLE AS, restored from a dump without its
//     constraints or made by an ORM lacks it;
//   - on PostgreSQL, an UNLOGGED table (emptied after a crash);
//   - before its first write, a session that cannot write
//     (default_transaction_read_only, a standby, MySQL
//     transaction_read_only or read_only), which would otherwise retry
//     until the acquire timeout.
//
// On PostgreSQL, Options.Table may name its schema ("app.once_leases").
// An unqualified name resolves through the search_path of the connection
// that checks the table; from then on every statement names the schema
// found, and [Strategy.Table] reports it ("public.once_leases"). Two
// services whose sessions have different search_paths (a role's own
// setting, a DSN's search_path) can resolve one name to two tables and
// hold the same machine IDs without a word: where more than one schema
// may hold a lease table, name the schema.
//
// # Clock
//
// One clock decides: the database's, in UTC, read once per statement —
// PostgreSQL statement_timestamp() AT TIME ZONE 'UTC', MySQL
// UTC_TIMESTAMP(6), SQLite strftime(..., 'now') — so among Go processes
// neither the session time zone, nor DST, nor the application hosts'
// clocks matter. Timestamps are read back as text, independent of drivers'
// time decoding. On SQLite, which has no timestamp type, expires_at is
// TEXT in exactly one format, 'YYYY-MM-DDTHH:MM:SS.ffffffZ' (fixed width,
// so text order is time order; SQLite's own clock has millisecond
// resolution); rows whose value is not in that format are never treated
// as free.
//
// # Sharing the table with the Elixir library
//
// The Elixir NoNoncense library writes and compares expires_at with
// CURRENT_TIMESTAMP: wall-clock time in the session's time zone, which is
// the database's default because its drivers (Postgrex, MyXQL) set none.
// It agrees with this package only when that default is UTC; otherwise
// the Elixir side takes IDs Go holds (east of UTC) and Go takes IDs the
// Elixir side holds (west of UTC). So on a table shared with it
// (Options.Sharing; by default a table named "no_noncense_leases") a
// strategy refuses to start (lease.ErrConfig) unless the database's
// default time zone is UTC by name (UTC, Etc/UTC, GMT, +00:00, ...;
// Europe/London is refused even in winter). Fix it with ALTER DATABASE
// <db> SET timezone = 'UTC' (PostgreSQL) or default_time_zone = '+00:00'
// (MySQL). On PostgreSQL the check reads the default that applies to this
// database and role; a role-specific setting for the Elixir side's own
// database user is beyond what it can see, and when this connection sets
// its own TimeZone (a DSN parameter) and no database or role default
// exists, the default cannot be read and the check refuses. Tables used
// only by Go (Options.Sharing = GoOnly, or any other name) skip this
// check.
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
// [lease.ErrLost], on Release it is harmless. Reclaim (a restart from the
// manager's state file) renews and writes a new token in the same
// statement, so the old token renews nothing afterwards and of two copies
// of one state file only one reclaims. Every write bumps lock_version.
//
// Every statement commits whatever the session's autocommit setting. On
// MySQL/MariaDB a DSN's autocommit=0, a server's init_connect or a SET
// GLOBAL that new connections inherit can turn it off, and an uncommitted
// claim would be rolled back when the pool closes the connection while
// this process goes on using the ID. So a call runs on one connection,
// reads @@autocommit after its first statement and, while it is off,
// follows every statement with COMMIT, before its result counts; a COMMIT
// that fails is an unknown outcome (lease.ErrRetry, with the claim
// returned beside it), and a connection on which a statement failed is
// closed, not handed back to the pool. With autocommit on, a write is
// applied and committed in its own round trip. PostgreSQL and SQLite
// statements commit on their own: database/sql sessions cannot turn
// autocommit off there.
//
// The holder column, when the table has one, records "<first 16 hex
// digits of the token> <holder>" with every claim and reclaim; a row's
// holder counts only while its token starts with those digits, so a row
// claimed since by the Elixir library (which never writes the column)
// reports none. [Strategy.List] returns the held IDs with their holder,
// time left and token ([lease.Lister]).
//
// Lease.Token carries the 16-byte token as 32 hex digits. Lease.TTL is d
// rounded up to whole microseconds, as stored. Lease.PrevExpiry is the
// row's expires_at before the claim (1970 for a row never held), for the
// manager's hand-off guard, which then costs no wait when the previous
// holder's lease ended long ago; Lease.CoordinatorNow is the database's
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
// without importing them. A call starts nothing that outlives it: when a
// claim (Acquire, Reclaim) was sent but its reply was lost, the call
// returns the lease it may have written beside lease.ErrRetry, and the
// caller (the lease manager) releases it.
//
// On SQLite, whose busy wait ignores contexts, a call with a deadline runs
// on one connection whose busy_timeout is lowered to the time left and
// restored afterwards. Keep SQLite pools small (one writer at a time).
package sqllease
