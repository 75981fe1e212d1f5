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

// runner runs statements: the pool or one connection of it.
type runner interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// conn is where a session's statements run: the pool or one connection.
type conn interface {
	runner
	Close() error
}

// pool is the *sql.DB as a conn: a session on the pool closes nothing.
type pool struct{ *sql.DB }

func (pool) Close() error { return nil }

// session is where one call's statements run.
//
// On MySQL a session holds one connection, and every statement commits
// whatever that connection's autocommit setting (autocommit=0 in the DSN,
// a server's init_connect, a SET GLOBAL that new connections inherit): an
// uncommitted claim would be rolled back when the pool closes the
// connection, while this process goes on using the machine ID, and reads
// would leave a snapshot open. After its first statement the session reads
// @@autocommit; while it is off, every statement is followed by a COMMIT,
// and a COMMIT that fails is a *commitError (the write's outcome is
// unknown). The write itself comes first, so that with autocommit on (the
// usual case) it is applied and committed in its own round trip, and a
// lost reply leaves a write that was applied, which a replay confirms. A
// connection on which any statement failed is closed rather than handed
// back to the pool, so the server rolls back whatever it left open.
// PostgreSQL and SQLite have no setting that turns autocommit off for
// database/sql: their statements commit on their own.
type session struct {
	conn       conn
	mysql      bool
	autocommit int8 // MySQL: 0 not read yet, 1 on, -1 off
	broken     bool // MySQL: a statement failed; discard the connection
}

// commitError is a COMMIT that failed: the write it ends may or may not
// be applied.
type commitError struct{ err error }

func (e *commitError) Error() string { return "commit: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// after follows every statement of a MySQL session (err: the statement's
// error): it reads the connection's autocommit setting once, and commits
// while it is off.
func (ss *session) after(ctx context.Context, err error) error {
	if !ss.mysql {
		return err
	}
	if err == nil && ss.autocommit == 0 {
		var on int64
		if err = first(ctx, ss.conn, "SELECT @@autocommit", nil, &on); err == nil {
			ss.autocommit = -1
			if on != 0 {
				ss.autocommit = 1
			}
		}
	}
	if err == nil && ss.autocommit < 0 {
		if _, cerr := ss.conn.ExecContext(ctx, "COMMIT"); cerr != nil {
			err = &commitError{cerr}
		}
	}
	if err != nil {
		ss.broken = true
	}
	return err
}

// done ends the session: a MySQL connection on which a statement failed
// is discarded, any other one handed back to the pool.
func (ss *session) done() {
	if c, ok := ss.conn.(*sql.Conn); ok && ss.broken {
		c.Raw(func(any) error { return driver.ErrBadConn })
	}
	ss.conn.Close()
}

// exec runs a write and returns the number of rows it changed, committed.
func (ss *session) exec(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	res, err := ss.conn.ExecContext(ctx, query, args...)
	if err == nil {
		n, err = res.RowsAffected()
	}
	return n, ss.after(ctx, err)
}

// query runs a statement and calls scan for each row it returns.
func (ss *session) query(ctx context.Context, query string, args []any, scan func(*sql.Rows) error) error {
	return ss.after(ctx, each(ctx, ss.conn, query, args, scan))
}

// queryRow runs a statement and scans its first row into dest; no row is
// sql.ErrNoRows.
func (ss *session) queryRow(ctx context.Context, query string, args []any, dest ...any) error {
	err := first(ctx, ss.conn, query, args, dest...)
	if errors.Is(err, sql.ErrNoRows) {
		if aerr := ss.after(ctx, nil); aerr != nil {
			return aerr
		}
		return err
	}
	return ss.after(ctx, err)
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
// PostgreSQL and MySQL drivers cancel a statement when its context ends.
// PostgreSQL calls use the pool; MySQL calls one connection of it (see
// session). SQLite's busy handler (the wait for another writer's lock,
// PRAGMA busy_timeout) does not look at the context: a call could outlive
// its deadline by the whole busy timeout. So on SQLite, when ctx has a
// deadline, the call runs on one connection whose busy timeout is lowered
// to the time left (never raised; 0 stays 0) and restored afterwards; a
// connection that cannot be restored is discarded, not returned to the
// pool with the application's setting changed.
func (s *Strategy) session(ctx context.Context) (*session, error) {
	deadline, ok := ctx.Deadline()
	switch {
	case s.dialect == migrations.MySQL:
		c, err := s.db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		return &session{conn: c, mysql: true}, nil
	case s.dialect != migrations.SQLite || !ok:
		return &session{conn: pool{s.db}}, nil
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
	left := max(time.Until(deadline).Milliseconds(), 1)
	if prev <= left {
		return &session{conn: c}, nil
	}
	if _, err := c.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(left, 10)); err != nil {
		c.Close()
		return nil, err
	}
	return &session{conn: restoring{c, prev}}, nil
}

// restoring is an SQLite connection whose busy timeout is restored to prev
// when it is closed; one that cannot be restored is discarded.
type restoring struct {
	*sql.Conn
	prev int64
}

func (c restoring) Close() error {
	if _, err := c.ExecContext(context.Background(), "PRAGMA busy_timeout = "+strconv.FormatInt(c.prev, 10)); err != nil {
		c.Raw(func(any) error { return driver.ErrBadConn }) // discard the connection
	}
	return c.Conn.Close()
}

// isCommit reports whether err is a failed COMMIT.
func isCommit(err error) bool {
	var ce *commitError
	return errors.As(err, &ce)
}
