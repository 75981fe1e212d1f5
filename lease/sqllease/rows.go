package sqllease

import (
	"context"
	"time"
)

// Row is one row of the lease table, as [Strategy.Rows] reads it.
type Row struct {
	// ID is the machine ID.
	ID int
	// Token is the holder's 16-byte token; nil for a row never held.
	Token []byte
	// ExpiresAt is the lease's end in UTC (the database's clock); zero if
	// the stored value is not in the table's format.
	ExpiresAt time.Time
	// LockVersion counts the writes to the row.
	LockVersion int64
	// Held reports whether the row was not free at the database's now
	// (the same test Acquire uses).
	Held bool
}

// Rows reads the whole lease table in ID order, for inspection tools
// (`once lease ls`) and tests.
func (s *Strategy) Rows(ctx context.Context) ([]Row, error) {
	const op = "list rows"
	rows, err := s.db.QueryContext(ctx, s.q.list)
	if err != nil {
		return nil, fail(ctx, op, s.opts.Table, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var (
			r    Row
			exp  string
			held int
		)
		if err := rows.Scan(&r.ID, &r.Token, &exp, &r.LockVersion, &held); err != nil {
			return nil, fail(ctx, op, s.opts.Table, err)
		}
		r.Held = held == 1
		// A value in a foreign format (SQLite) stays zero; such a row is
		// reported held, as Acquire treats it.
		r.ExpiresAt, _ = parseTime("expires_at", exp)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, op, s.opts.Table, err)
	}
	return out, nil
}
