// Package sqllease leases machine IDs from a table in the application's own
// SQL database, through its *sql.DB: PostgreSQL, MySQL/MariaDB or SQLite.
// It implements [driver.Strategy], [driver.Reclaimer], [driver.Claimer]
// and [driver.Lister] for the lease manager in package lease.
//
//	if err := migrations.Apply(ctx, db, 0, ""); err != nil { ... } // the table once_leases, 512 rows
//	s, err := sqllease.New(db, sqllease.Options{})                  // dialect from db's driver
//	m, err := lease.Start(ctx, s, lease.Options{Factories: []*nonce.Factory{f}})
//
// The table has the columns of the Elixir NoNoncense lease table (id,
// token, expires_at in UTC, lock_version; plus an optional holder column),
// so both libraries can share it (Options.Table = "no_noncense_leases").
// One clock decides, the database's, so the application hosts' clocks and
// time zones do not matter. A lease is claimed with one conditional UPDATE
// on lock_version and expires_at; renewals and releases match the row's
// token. The strategy advises a 1 h lease ([driver.DurationDefaulter]): its
// coordinator is the database the IDs are written to.
//
// Before its first call a strategy checks what would let two sessions
// hold one ID, and refuses it with [driver.ErrConfig] naming the setting and
// the fix: an expires_at column with a time zone, an id that is not a
// unique key on its own, an UNLOGGED table, a session that cannot write,
// and, on a table shared with the Elixir library (Options.Sharing), a
// database whose default time zone is not UTC. On PostgreSQL, name the
// schema (Options.Table = "app.once_leases") wherever more than one schema
// may hold a lease table; [Strategy.Table] reports the table a strategy
// resolved to. Every statement commits, whatever the session's autocommit
// setting.
//
// Errors for a statement that can never work (missing table, permission
// denied, bad credentials) are [driver.ErrConfig]; everything else is
// [driver.ErrRetry]. The table, the clock, the statements and the errors in
// detail: docs/coordinators.md in the repository
// (https://github.com/once-go/once).
package sqllease
