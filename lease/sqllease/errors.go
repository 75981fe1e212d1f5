package sqllease

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/migrations"
)

// pkg prefixes every error message.
const pkg = "sqllease"

// opError is a failed database call, classified: Unwrap yields the lease
// sentinel (ErrRetry or ErrConfig) and the driver's own error, so both
// errors.Is(err, driver.ErrRetry) and errors.Is(err, context.DeadlineExceeded)
// (or errors.As to the driver's type) work.
type opError struct {
	op    string // "acquire machine ID", "renew machine ID 17", ...
	kind  error  // driver.ErrRetry or driver.ErrConfig
	hint  string // what to do, for configuration errors
	cause error
	ctx   error // the call's context error, when it ended and cause does not say so
}

// Error reads like the errors of leasekit.Errorf: "sqllease: op: cause
// (hint): " then the sentinel's message.
func (e *opError) Error() string {
	var b strings.Builder
	b.WriteString(pkg + ": ")
	b.WriteString(e.op)
	b.WriteString(": ")
	b.WriteString(e.cause.Error())
	if e.hint != "" {
		b.WriteString(" (")
		b.WriteString(e.hint)
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(e.kind.Error())
	return b.String()
}

func (e *opError) Unwrap() []error {
	if e.ctx != nil {
		return []error{e.kind, e.cause, e.ctx}
	}
	return []error{e.kind, e.cause}
}

// fail classifies err from a call made with ctx. When ctx has ended, the
// error is retry (whatever the driver made of the interruption: SQLite
// reports SQLITE_BUSY or SQLITE_INTERRUPT) and matches ctx's error.
func fail(ctx context.Context, op, table string, err error) error {
	err = classify(op, table, err)
	var oe *opError
	if cerr := ctx.Err(); cerr != nil && errors.As(err, &oe) && !errors.Is(err, cerr) {
		oe.kind, oe.hint, oe.ctx = driver.ErrRetry, "", cerr
	}
	return err
}

func errUnknownDialect(d migrations.Dialect) error {
	return leasekit.Errorf(pkg, driver.ErrConfig, "unknown dialect %v", d)
}

// classify maps a database error to ErrConfig when the server positively
// says the statement can never work as configured (missing table or
// column, permission denied, syntax, unknown database, bad credentials),
// and to ErrRetry otherwise: a failed COMMIT (its write's outcome is
// unknown), connection failures, timeouts, context ends,
// pool exhaustion (a context deadline while waiting for a connection),
// driver.ErrBadConn, sql.ErrConnDone, a closed *sql.DB, serialization
// failures, deadlocks, lock timeouts, read-only failover states and
// anything unrecognised. ErrRetry is the safe default: the manager keeps
// trying only while the lease's safe window lasts.
//
// Drivers are recognised without importing them: PostgreSQL errors by a
// SQLState() string method (pgx's *pgconn.PgError, lib/pq's *pq.Error),
// MySQL errors by a uint16 Number field (go-sql-driver's *mysql.MySQLError,
// which has no method for it), SQLite errors by a Code() int method
// (modernc.org/sqlite, glebarez/go-sqlite) or, failing that, by message.
func classify(op, table string, err error) error {
	if err == nil {
		return nil
	}
	var oe *opError
	if errors.As(err, &oe) {
		return err
	}
	if errors.Is(err, driver.ErrConfig) || errors.Is(err, driver.ErrLost) {
		return fmt.Errorf("sqllease: %s: %w", op, err)
	}
	e := &opError{op: op, kind: driver.ErrRetry, cause: err}
	if isCommit(err) {
		return e // a write whose outcome is unknown, whatever the driver says
	}
	if hint, ok := configHint(err, table); ok {
		e.kind, e.hint = driver.ErrConfig, hint
	}
	return e
}

// configHint walks err's tree for a driver error that means configuration.
func configHint(err error, table string) (string, bool) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	migrate := "is table " + table + " missing? create it with migrations.Apply or `once lease migrate`"
	var hint string
	found := false
	walk(err, func(e error) bool {
		if s, ok := e.(interface{ SQLState() string }); ok {
			hint, found = pgHint(s.SQLState(), migrate)
			return true
		}
		if n, ok := mysqlNumber(e); ok {
			hint, found = mysqlHint(n, migrate)
			return true
		}
		if c, ok := e.(interface{ Code() int }); ok {
			hint, found = sqliteHint(c.Code(), e.Error(), migrate)
			return true
		}
		return false
	})
	if !found && !walk(err, isCoded) {
		// An SQLite driver without a Code method: judge by message.
		msg := err.Error()
		if strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") {
			return migrate, true
		}
	}
	return hint, found
}

func isCoded(e error) bool {
	_, pg := e.(interface{ SQLState() string })
	_, my := mysqlNumber(e)
	_, lite := e.(interface{ Code() int })
	return pg || my || lite
}

// walk calls fn on every error in err's tree, depth first, until fn
// returns true; it reports whether fn did.
func walk(err error, fn func(error) bool) bool {
	if err == nil {
		return false
	}
	if fn(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return walk(u.Unwrap(), fn)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if walk(e, fn) {
				return true
			}
		}
	}
	return false
}

// mysqlNumber reads the Number field of go-sql-driver/mysql's
// *MySQLError (a struct pointer with Number uint16 and SQLState [5]byte).
func mysqlNumber(e error) (uint16, bool) {
	v := reflect.ValueOf(e)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, false
	}
	v = v.Elem()
	n, st := v.FieldByName("Number"), v.FieldByName("SQLState")
	if !n.IsValid() || n.Kind() != reflect.Uint16 || !st.IsValid() || st.Kind() != reflect.Array {
		return 0, false
	}
	return uint16(n.Uint()), true
}

// pgHint: SQLSTATE classes 42 (syntax, undefined table/column, privilege),
// 28 (authorization), 3D (unknown database), 3F (unknown schema) and 0A
// (feature not supported) are configuration; everything else (08
// connection, 40 serialization/deadlock, 53 resources, 55 lock, 57
// shutdown/cancel, 58 system, 25006 read-only after a failover, XX) is
// retry.
func pgHint(state, migrate string) (string, bool) {
	switch {
	case state == "42P01" || state == "42703":
		return migrate, true
	case state == "42501":
		return "the database user lacks SELECT/UPDATE on the lease table", true
	case strings.HasPrefix(state, "42"):
		return "the lease table does not have the expected schema, or the server is unsupported", true
	case strings.HasPrefix(state, "28"):
		return "database credentials rejected", true
	case strings.HasPrefix(state, "3D"), strings.HasPrefix(state, "3F"):
		return "unknown database or schema", true
	case strings.HasPrefix(state, "0A"):
		return "the server does not support a statement the strategy needs", true
	}
	return "", false
}

// mysqlHint: MySQL/MariaDB error numbers that mean configuration.
func mysqlHint(n uint16, migrate string) (string, bool) {
	switch n {
	case 1146, 1054, 1109: // no such table, unknown column, unknown table
		return migrate, true
	case 1142, 1143, 1044, 1045, 1227, 1370, 1698: // table/column/db access denied, bad credentials
		return "the database user lacks access to the lease table", true
	case 1064, 1149, 1305: // syntax error, unknown function
		return "the server does not accept the strategy's SQL; check the dialect and server version", true
	case 1046, 1049: // no database selected, unknown database
		return "unknown or no database selected in the DSN", true
	}
	return "", false
}

// sqliteHint: primary result codes SQLITE_ERROR (1: no such table, syntax),
// SQLITE_PERM (3), SQLITE_READONLY (8), SQLITE_CORRUPT (11),
// SQLITE_CANTOPEN (14), SQLITE_AUTH (23) and SQLITE_NOTADB (26) are
// configuration; SQLITE_BUSY (5), SQLITE_LOCKED (6), SQLITE_NOMEM (7),
// SQLITE_IOERR (10), SQLITE_FULL (13) and the rest are retry.
func sqliteHint(code int, msg, migrate string) (string, bool) {
	switch code & 0xff {
	case 1:
		if strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column") {
			return migrate, true
		}
		return "SQL error; check the dialect and the SQLite version (3.35+ is needed)", true
	case 3, 8, 23:
		return "the database file is read-only or access is denied", true
	case 11, 14, 26:
		return "the database file cannot be opened or is not an SQLite database", true
	}
	return "", false
}
