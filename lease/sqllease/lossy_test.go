package sqllease_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
)

// errReplyLost is what a lossy connection returns after it ran a statement
// on the server: the statement was applied, its reply never arrived.
var errReplyLost = errors.New("connection reset after the statement was sent (test)")

// lossy is a connector to the real test server of one dialect that, once
// armed, runs the next statement starting with prefix and then reports
// errReplyLost instead of its result, as a connection that breaks between
// the server's commit and the reply would. Armed with armCommit, the
// statement succeeds and the next COMMIT on its connection loses its
// reply instead (a session with autocommit off). A hook set with before
// runs ahead of every statement.
type lossy struct {
	drv    driver.Driver
	dsn    string
	prefix atomic.Pointer[string]
	commit atomic.Bool // armCommit: lose the next COMMIT's reply instead
	hook   atomic.Pointer[func(query string)]
}

// openLossy returns a pool on dialect d's test server (for SQLite, on the
// database file path) whose connections drop a reply when armed.
func openLossy(t *testing.T, d migrations.Dialect, path string) (*sql.DB, *lossy) {
	t.Helper()
	return openLossyDSN(t, d, path, "")
}

// openLossyDSN is openLossy on the server at dsn ("": the test server's).
func openLossyDSN(t *testing.T, d migrations.Dialect, path, dsn string) (*sql.DB, *lossy) {
	t.Helper()
	var ref *sql.DB
	l := &lossy{}
	switch d {
	case migrations.Postgres:
		ref, l.dsn = testenv.Postgres(t), testenv.PostgresDSN()
	case migrations.MySQL:
		ref, l.dsn = testenv.MySQL(t), testenv.MySQLDSN()
	default:
		ref, l.dsn = testenv.SQLite(t), testenv.SQLiteDSN(path)
	}
	if dsn != "" {
		l.dsn = dsn
	}
	l.drv = ref.Driver()
	db := sql.OpenDB(l)
	t.Cleanup(func() { db.Close() })
	return db, l
}

// arm makes the next statement starting with prefix lose its reply.
func (l *lossy) arm(prefix string) { l.commit.Store(false); l.prefix.Store(&prefix) }

// armCommit makes the COMMIT that follows the next statement starting
// with prefix, on the same connection, lose its reply.
func (l *lossy) armCommit(prefix string) { l.commit.Store(true); l.prefix.Store(&prefix) }

// before makes fn run ahead of every statement, with its text.
func (l *lossy) before(fn func(query string)) { l.hook.Store(&fn) }

// ahead runs the hook set with before, if any, for statement q.
func (l *lossy) ahead(q string) {
	if fn := l.hook.Load(); fn != nil {
		(*fn)(q)
	}
}

// hit reports whether query is the armed one, disarming.
func (l *lossy) hit(query string) bool {
	p := l.prefix.Load()
	return p != nil && strings.HasPrefix(query, *p) && l.prefix.CompareAndSwap(p, nil)
}

func (l *lossy) Connect(context.Context) (driver.Conn, error) {
	c, err := l.drv.Open(l.dsn)
	if err != nil {
		return nil, err
	}
	return &lossyConn{Conn: c, l: l}, nil
}

func (l *lossy) Driver() driver.Driver { return l.drv }

type lossyConn struct {
	driver.Conn
	l       *lossy
	pending bool // armCommit's statement ran: the next COMMIT loses its reply
}

// lose reports whether the reply of statement q, which succeeded, is to
// be lost.
func (c *lossyConn) lose(q string) bool {
	if c.pending && strings.HasPrefix(q, "COMMIT") {
		c.pending = false
		return true
	}
	if !c.l.hit(q) {
		return false
	}
	if c.l.commit.Load() {
		c.pending = true
		return false
	}
	return true
}

func (c *lossyConn) CheckNamedValue(v *driver.NamedValue) error {
	if nc, ok := c.Conn.(driver.NamedValueChecker); ok {
		return nc.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (c *lossyConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.l.ahead(q)
	res, err := e.ExecContext(ctx, q, args)
	if err == nil && c.lose(q) {
		return nil, errReplyLost
	}
	return res, err
}

func (c *lossyConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	qc, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.l.ahead(q)
	rows, err := qc.QueryContext(ctx, q, args)
	if err == nil && c.lose(q) {
		return nil, drain(rows)
	}
	return rows, err
}

func (c *lossyConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if pc, ok := c.Conn.(driver.ConnPrepareContext); ok {
		st, err = pc.PrepareContext(ctx, q)
	} else {
		st, err = c.Conn.Prepare(q)
	}
	if err != nil {
		return nil, err
	}
	return &lossyStmt{Stmt: st, q: q, c: c}, nil
}

func (c *lossyConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	b, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		return nil, fmt.Errorf("lossy: %T has no BeginTx", c.Conn)
	}
	return b.BeginTx(ctx, opts)
}

// drain reads rows to the end (the statement completes on the server) and
// returns errReplyLost.
func drain(rows driver.Rows) error {
	dest := make([]driver.Value, len(rows.Columns()))
	for rows.Next(dest) == nil {
	}
	rows.Close()
	return errReplyLost
}

type lossyStmt struct {
	driver.Stmt
	q string
	c *lossyConn
}

func (s *lossyStmt) CheckNamedValue(v *driver.NamedValue) error {
	if nc, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return nc.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (s *lossyStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.l.ahead(s.q)
	res, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	if err == nil && s.c.lose(s.q) {
		return nil, errReplyLost
	}
	return res, err
}

func (s *lossyStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.l.ahead(s.q)
	rows, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err == nil && s.c.lose(s.q) {
		return nil, drain(rows)
	}
	return rows, err
}
