package sqllease

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// table is the lease table as the strategy's first call found it: its
// name as reported, its statements, and its holder column.
type table struct {
	// name is the table as messages and Table report it: on PostgreSQL
	// schema.table, the schema the name resolved to.
	name string
	// ref is the table as statements name it, quoted: on PostgreSQL
	// qualified by its schema, so that no later search_path moves it.
	ref string
	q   *queries
	// holder is the capacity of the holder column: 0 when the table has
	// none, -1 when unbounded.
	holder int
	// writable: a write that changes nothing succeeded (see probe).
	writable atomic.Bool
}

// minHolderSize is the smallest holder column the strategy writes to:
// the token prefix, a space and a few characters of the holder.
const minHolderSize = holderPrefix + 1 + 8

// ready returns the table once it has passed the checks the strategy runs
// before its first call: where the name resolves (PostgreSQL), its column
// types (checkColumns), its key (migrations.CheckKey) and, on a table
// shared with the Elixir library, the database's default time zone
// (checkZone). The checks run on one
// connection (on MySQL in one transaction), so that they see one
// search_path and one snapshot. A check that fails with ErrRetry runs
// again on the next call; a table that passed is not checked again.
func (s *Strategy) ready(ctx context.Context) (*table, error) {
	if t := s.tab.Load(); t != nil {
		return t, nil
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fail(ctx, "check table "+s.opts.Table, s.opts.Table, err)
	}
	ss := &session{conn: c, mysql: s.dialect == migrations.MySQL}
	defer ss.done()
	t, err := s.check(ctx, c)
	if err != nil {
		ss.broken = true
		return nil, err
	}
	if err := ss.after(ctx, nil); err != nil { // MySQL: end the reads' transaction
		return nil, fail(ctx, "check table "+s.opts.Table, s.opts.Table, err)
	}
	s.tab.Store(t)
	return t, nil
}

// check runs ready's checks on r.
func (s *Strategy) check(ctx context.Context, r runner) (*table, error) {
	t, err := s.resolve(ctx, r)
	if err != nil {
		return nil, err
	}
	if t.holder, err = s.checkColumns(ctx, r, t); err != nil {
		return nil, err
	}
	if err := migrations.CheckKey(ctx, r, s.dialect, s.opts.Table); err != nil {
		if errors.Is(err, migrations.ErrConfig) {
			return nil, leasekit.Errorf(pkg, driver.ErrConfig, "%s", s.resolvedAs(t, strings.TrimPrefix(err.Error(), "migrations: ")))
		}
		return nil, fail(ctx, "check the key of table "+t.name, t.name, err)
	}
	if t.q, err = newQueries(s.dialect, t.ref, t.holder != 0); err != nil {
		return nil, err
	}
	if s.shared() && s.dialect != migrations.SQLite {
		if err := s.checkZone(ctx, r, t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// resolvedAs adds to msg, on PostgreSQL, the table the name resolved to
// when it differs from the name given.
func (s *Strategy) resolvedAs(t *table, msg string) string {
	if t.name == s.opts.Table {
		return msg
	}
	return msg + " (" + s.opts.Table + " resolved to " + t.name + ")"
}

// resolve finds the table. On PostgreSQL an unqualified name resolves
// through the session's search_path, as an unqualified name in a
// statement would; the statements then name the schema found, and an
// UNLOGGED table (emptied after a crash, freeing every held lease) is
// refused. On MySQL and SQLite the name is used as given.
func (s *Strategy) resolve(ctx context.Context, r runner) (*table, error) {
	quoted, err := migrations.QuoteTable(s.dialect, s.opts.Table)
	if err != nil {
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "%w", err)
	}
	t := &table{name: s.opts.Table, ref: quoted}
	if s.dialect != migrations.Postgres {
		return t, nil
	}
	var schema, name, persistence string
	switch err := first(ctx, r, `SELECT n.nspname, c.relname, c.relpersistence FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`, []any{quoted}, &schema, &name, &persistence); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "table %s not found in the session's search_path (create it with migrations.Apply or `once lease migrate`, "+
			"or name its schema: Options.Table = \"schema.%s\")", s.opts.Table, s.opts.Table)
	case err != nil:
		return nil, fail(ctx, "check table "+s.opts.Table, s.opts.Table, err)
	}
	t.name, t.ref = schema+"."+name, quoteIdent(schema)+"."+quoteIdent(name)
	if persistence == "u" {
		return nil, leasekit.Errorf(pkg, driver.ErrConfig, "table %s is UNLOGGED: PostgreSQL empties it after a crash, freeing every held lease "+
			"while its holders go on; run ALTER TABLE %s SET LOGGED", t.name, t.ref)
	}
	return t, nil
}

// quoteIdent quotes a PostgreSQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// probe runs, before the strategy's first write, a write that changes
// nothing, to refuse at once a session that cannot write (PostgreSQL
// default_transaction_read_only or a standby, MySQL transaction_read_only
// / tx_read_only or read_only): its claims would otherwise fail as
// transient errors until the acquire timeout. Once a probe has passed, the
// same failure (a failover in progress) is transient again. SQLite
// reports a read-only database as a configuration error on the first
// claim.
func (s *Strategy) probe(ctx context.Context, ss *session, t *table) error {
	if s.dialect == migrations.SQLite || t.writable.Load() {
		return nil
	}
	_, err := ss.exec(ctx, t.q.probe)
	if err == nil {
		t.writable.Store(true)
		return nil
	}
	if setting, fix, ok := readOnly(s.dialect, err); ok {
		return leasekit.Errorf(pkg, driver.ErrConfig, "table %s: the session cannot write (%s): %v; %s", t.name, setting, err, fix)
	}
	return fail(ctx, "check that table "+t.name+" is writable", t.name, err)
}

// readOnly recognises the errors of a write in a read-only session and
// names the settings that cause them and the fix.
func readOnly(d migrations.Dialect, err error) (setting, fix string, ok bool) {
	found := false
	walk(err, func(e error) bool {
		if st, ok := e.(interface{ SQLState() string }); ok && d == migrations.Postgres {
			if st.SQLState() == "25006" {
				setting = "default_transaction_read_only = on, from the DSN, the role or the database, or a standby server"
				fix = "connect to the primary with default_transaction_read_only = off (ALTER ROLE <user> SET default_transaction_read_only = off; " +
					"target_session_attrs=read-write in the DSN)"
				found = true
			}
			return true
		}
		if n, ok := mysqlNumber(e); ok && d == migrations.MySQL {
			switch n {
			case 1792: // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
				setting = "transaction_read_only / tx_read_only = 1"
				fix = "remove it from the DSN and the server's init_connect"
				found = true
			case 1290, 1836: // ER_OPTION_PREVENTS_STATEMENT (--read-only), ER_READ_ONLY_MODE
				setting = "the server runs with read_only"
				fix = "connect to the primary, or grant the lease user the privilege to write despite read_only"
				found = true
			}
			return true
		}
		return false
	})
	return setting, fix, found
}
