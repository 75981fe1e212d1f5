package sqllease

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"time"

	"github.com/once-go/once/migrations"
)

// querier is what one call's statements run on: the pool, or one
// connection of it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// session returns where to run one call's statements and a function to
// call when done.
//
// PostgreSQL and MySQL drivers cancel a statement when its context ends,
// so calls use the pool. SQLite's busy handler (the wait for another
// writer's lock, PRAGMA busy_timeout) does not look at the context: a call
// could outlive its deadline by the whole busy timeout. So on SQLite, when
// ctx has a deadline, the call runs on one connection whose busy timeout is
// lowered to the time left (never raised; 0 stays 0) and restored
// afterwards; a connection that cannot be restored is discarded, not
// returned to the pool with the application's setting changed.
func (s *Strategy) session(ctx context.Context) (querier, func(), error) {
	deadline, ok := ctx.Deadline()
	if s.dialect != migrations.SQLite || !ok {
		return s.db, func() {}, nil
	}
	c, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	var prev int64
	if err := c.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&prev); err != nil {
		c.Close()
		return nil, nil, err
	}
	left := max(time.Until(deadline).Milliseconds(), 1)
	if prev <= left {
		return c, func() { c.Close() }, nil
	}
	if _, err := c.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(left, 10)); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, func() {
		if _, err := c.ExecContext(context.Background(), "PRAGMA busy_timeout = "+strconv.FormatInt(prev, 10)); err != nil {
			c.Raw(func(any) error { return driver.ErrBadConn }) // discard the connection
		}
		c.Close()
	}, nil
}
