package oncepgx

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5"
)

// Copier is what CopyFrom runs the COPY on: *pgx.Conn, *pgxpool.Pool and
// pgx.Tx.
type Copier interface {
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// CopyFrom runs c.CopyFrom(ctx, table, columns, src) and, when a value of a
// row cannot be encoded because its Valuer fails (the zero once ID in a
// column that is not nullable, say), returns that error, wrapped so that
// errors.Is matches it, naming the row (from 1) and the column, instead of
// the server's "COPY from stdin failed"; an error of src itself (from
// Values or Err) is returned as it is. The COPY is aborted as before and
// writes nothing. A nil pointer is NULL and is not asked for its value.
//
// Each Valuer is called once more than pgx calls it; the once ID types
// allocate nothing for it.
func CopyFrom(ctx context.Context, c Copier, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	cs := &checked{src: src, columns: columns}
	n, err := c.CopyFrom(ctx, table, columns, cs)
	if cs.err != nil {
		return n, cs.err
	}
	if err != nil && src.Err() != nil {
		return n, src.Err()
	}
	return n, err
}

// checked passes src's rows on and stops at the first value whose Valuer
// fails.
type checked struct {
	src     pgx.CopyFromSource
	columns []string
	row     int
	err     error
}

func (c *checked) Next() bool {
	if c.err != nil {
		return false
	}
	c.row++
	return c.src.Next()
}

func (c *checked) Values() ([]any, error) {
	vs, err := c.src.Values()
	if err != nil {
		c.err = err
		return nil, err
	}
	for i, v := range vs {
		vr, ok := v.(driver.Valuer)
		if !ok {
			continue
		}
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			continue
		}
		if _, err := vr.Value(); err != nil {
			col := fmt.Sprint(i + 1)
			if i < len(c.columns) {
				col = c.columns[i]
			}
			c.err = fmt.Errorf("oncepgx: row %d, column %s: %w", c.row, col, err)
			return nil, c.err
		}
	}
	return vs, nil
}

func (c *checked) Err() error { return c.src.Err() }
