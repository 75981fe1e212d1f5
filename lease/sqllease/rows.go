package sqllease

import (
	"context"
	"database/sql"
	"encoding/hex"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
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
	// Holder is who took the row's current token, as recorded in the
	// holder column (see [Options.Holder]); "" when the table has no
	// such column or the token was written by someone who recorded
	// nothing (the Elixir library, an older version of this package).
	Holder string
	// Fingerprint is the key fingerprint the holder recorded with its
	// token beside Holder (see driver.Slot.Fingerprint); "" when it
	// recorded none.
	Fingerprint string
}

// Rows reads the whole lease table in ID order, for inspection tools
// (`once lease ls`) and tests.
func (s *Strategy) Rows(ctx context.Context) ([]Row, error) {
	rows, _, err := s.rows(ctx)
	return rows, err
}

// rows reads the whole table and the database's clock.
func (s *Strategy) rows(ctx context.Context) ([]Row, time.Time, error) {
	const op = "list rows"
	t, ss, err := s.begin(ctx, op, false)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer ss.done()
	var (
		out  []Row
		now  time.Time
		nowS string
	)
	err = ss.query(ctx, t.q.list, nil, func(rows *sql.Rows) error {
		var (
			r      Row
			exp    string
			held   int
			holder sql.NullString
		)
		if err := rows.Scan(&r.ID, &r.Token, &exp, &r.LockVersion, &held, &nowS, &holder); err != nil {
			return err
		}
		r.Held = held == 1
		// A value in a foreign format (SQLite) stays zero; such a row is
		// reported held, as Acquire treats it.
		r.ExpiresAt, _ = parseTime("expires_at", exp)
		r.Holder, r.Fingerprint = holderOf(holder.String, r.Token)
		out = append(out, r)
		return nil
	})
	if err == nil && nowS != "" {
		now, err = parseTime("database clock", nowS)
	}
	if err != nil {
		return nil, time.Time{}, fail(ctx, op, t.name, err)
	}
	return out, now, nil
}

// List returns the held machine IDs in ascending order ([driver.Lister]):
// the rows whose expires_at is not before the database's now (the test
// Acquire uses), each with the time left by the database's clock (0 when
// expires_at is in a foreign format), the holder recorded with its token
// and the token as Release takes it (32 hex digits; "" for a token that is
// not 16 bytes, which Release cannot match).
func (s *Strategy) List(ctx context.Context) ([]driver.Slot, error) {
	rows, now, err := s.rows(ctx)
	if err != nil {
		return nil, err
	}
	var out []driver.Slot
	for _, r := range rows {
		if !r.Held || !leasekit.ValidID(r.ID) {
			continue
		}
		slot := driver.Slot{MachineID: r.ID, Holder: r.Holder, Fingerprint: r.Fingerprint}
		if !r.ExpiresAt.IsZero() {
			slot.TTL = max(r.ExpiresAt.Sub(now), 0)
		}
		if len(r.Token) == leasekit.TokenBytes {
			slot.Token = hex.EncodeToString(r.Token)
		}
		out = append(out, slot)
	}
	return out, nil
}
