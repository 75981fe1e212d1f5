package sqllease

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"
	"time"

	"github.com/once-go/once/migrations"
)

// runner runs statements: the pool, one connection of it, or a
// transaction.
type runner interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// conn is where a session's statements run: the pool or one connection.
type conn interface {
	runner
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// session is where one call's statements run.
//
// On MySQL every statement runs in a transaction of its own, committed
// before the statement counts as done (txs): a session whose autocommit
// is off (autocommit=0 in the DSN, a server's init_connect) would
// otherwise leave a claim uncommitted, to be rolled back when the pool
// closes the connection while this process goes on using the machine ID,
// and its reads would see the snapshot of a transaction left open. START
// TRANSACTION and COMMIT work whatever autocommit is. PostgreSQL and
// SQLite have no session setting that turns autocommit off for
// database/sql.
type session struct {
	conn conn
	txs  bool
	done func()
}

// commitError is a COMMIT that failed: the write it ends may or may not
// be applied.
type commitError struct{ err error }

func (e *commitError) Error() string { return "commit: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// do runs fn's statements, in a transaction committed when fn returns nil
// on MySQL (a failed COMMIT is a *commitError), on the session's
// connection elsewhere.
func (ss *session) do(ctx context.Context, fn func(r runner) error) error {
	if !ss.txs {
		return fn(ss.conn)
	}
	tx, err := ss.conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return &commitError{err}
	}
	return nil
}

// exec runs a write and returns the number of rows it changed, committed.
func (ss *session) exec(ctx context.Context, query string, args ...any) (n int64, err error) {
	err = ss.do(ctx, func(r runner) error {
		res, err := r.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// query runs a statement and calls scan for each row it returns.
func (ss *session) query(ctx context.Context, query string, args []any, scan func(*sql.Rows) error) error {
	return ss.do(ctx, func(r runner) error { return each(ctx, r, query, args, scan) })
}

// queryRow runs a statement and scans its first row into dest; no row is
// sql.ErrNoRows.
func (ss *session) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	return ss.do(ctx, func(r runner) error { return first(ctx, r, query, args, dest...) })
}

// each runs a query on r and calls scan for each row.
func each(ctx context.Context, r runner, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// first runs a query on r and scans its first row into dest; no row is
// sql.ErrNoRows.
func first(ctx context.Context, r runner, query string, args []any, dest ...any) error {
	found := false
	err := each(ctx, r, query, args, func(rows *sql.Rows) error {
		if found {
			return nil
		}
		found = true
		return rows.Scan(dest...)
	})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return err
}

// session returns where to run one call's statements; call its done when
// finished.
//
// PostgreSQL and MySQL drivers cancel a statement when its context ends,
// so calls use the pool. SQLite's busy handler (the wait for another
// writer's lock, PRAGMA busy_timeout) does not look at the context: a call
// could outlive its deadline by the whole busy timeout. So on SQLite, when
// ctx has a deadline, the call runs on one connection whose busy timeout is
// lowered to the time left (never raised; 0 stays 0) and restored
// afterwards; a connection that cannot be restored is discarded, not
// returned to the pool with the application's setting changed.
func (s *Strategy) session(ctx context.Context) (*session, error) {
	ss := &session{conn: s.db, txs: s.dialect == migrations.MySQL, done: func() {}}
	deadline, ok := ctx.Deadline()
	if s.dialect != migrations.SQLite || !ok {
		return ss, nil
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var prev int64
	if err := c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&prev); err != nil {
		c.Close()
		return nil, err
	}
	ss.conn, ss.done = c, func() { c.Close() }
	left := max(time.Until(deadline).Milliseconds(), 1)
	if prev <= left {
		return ss, nil
	}
	if _, err := c.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(left, 10)); err != nil {
		c.Close()
		return nil, err
	}
	ss.done = func() {
		if _, err := c.ExecContext(context.Background(), "PRAGMA busy_timeout = "+strconv.FormatInt(prev, 10)); err != nil {
			c.Raw(func(any) error { return driver.ErrBadConn }) // discard the connection
		}
		c.Close()
	}
	return ss, nil
}

// isCommit reports whether err is a failed COMMIT.
func isCommit(err error) bool {
	var ce *commitError
	return errors.As(err, &ce)
}
