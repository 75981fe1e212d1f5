package sqllease_test

import (
	"database/sql"
	"log/slog"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestFirstIDWithoutWait: a manager started on a fresh table takes a row
// never held (expires_at 1970), so its factories may start at once: the
// first timestamp they may emit (notBefore) is already in the past when
// Start returns, instead of the database's clock plus the hand-off skew.
func TestFirstIDWithoutWait(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		f := &activation{}
		m, err := lease.Start(leasehook.With(ctx, f), s, lease.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		defer m.Close(ctx)
		f.mu.Lock()
		nb := f.notBefore
		f.mu.Unlock()
		if !nb.Before(started) {
			t.Errorf("notBefore %v is %v after Start returned; want it in the past (the row was never held)",
				nb.UTC(), nb.Sub(started).Round(time.Millisecond))
		}
	})
}
