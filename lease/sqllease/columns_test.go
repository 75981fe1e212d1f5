package sqllease_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestZoneConvertingColumn: on a lease table whose expires_at converts
// between time zones (PostgreSQL timestamptz, MySQL TIMESTAMP(6)), a
// session at UTC+14 (MariaDB: +13) and one at UTC-12 would both hold
// machine ID 0. The strategy refuses such a table before its first claim,
// naming the column, its type, the type expected and why.
func TestZoneConvertingColumn(t *testing.T) {
	for _, c := range []struct {
		d            migrations.Dialect
		alter, typ   string
		want, wanted string
	}{
		{migrations.Postgres, `ALTER TABLE %s ALTER COLUMN expires_at TYPE timestamptz USING expires_at AT TIME ZONE 'UTC'`,
			"timestamp with time zone", "timestamp with time zone", "timestamp(6) without time zone"},
		// TIMESTAMP starts at 1970-01-01 00:00:01 UTC: free rows get a later past.
		{migrations.MySQL, "UPDATE %s SET expires_at = '2000-01-01'; ALTER TABLE %s MODIFY expires_at TIMESTAMP(6) NOT NULL",
			"timestamp(6)", "timestamp(6)", "datetime(6)"},
	} {
		t.Run(c.d.String(), func(t *testing.T) {
			t.Parallel()
			d, plain, ctx := c.d, openDB(t, c.d), ctxT(t)
			table := newTable(t, plain, d)
			q, _ := migrations.QuoteTable(d, table)
			for _, stmt := range strings.Split(strings.ReplaceAll(c.alter, "%s", q), "; ") {
				if _, err := plain.ExecContext(ctx, stmt); err != nil {
					t.Fatal(err)
				}
			}
			east := newStrategy(t, zoned(t, d, true), sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1})
			west := newStrategy(t, zoned(t, d, false), sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1})
			l, err := east.Acquire(ctx, time.Hour)
			if err == nil {
				w, werr := west.Acquire(ctx, time.Hour)
				t.Fatalf("expires_at %s accepted: machine ID %d held at UTC+14 for 1h, then Acquire at UTC-12 = machine ID %d, %v (double hold: %v)",
					c.typ, l.MachineID, w.MachineID, werr, werr == nil && w.MachineID == l.MachineID)
			}
			t.Logf("refused: %v", err)
			for _, s := range []*sqllease.Strategy{east, west} {
				_, err := s.Acquire(ctx, time.Hour)
				_, rerr := s.Reclaim(ctx, someLease, time.Hour)
				for _, err := range []error{err, rerr} {
					msg := ""
					if err != nil {
						msg = err.Error()
					}
					if !errors.Is(err, driver.ErrConfig) || !strings.HasPrefix(msg, "sqllease: ") ||
						!strings.Contains(msg, "expires_at") || !strings.Contains(msg, c.want) || !strings.Contains(msg, c.wanted) || !strings.Contains(msg, "session's time zone") {
						t.Errorf("on expires_at %s: %v; want ErrConfig naming expires_at, %q, %q and the session's time zone", c.typ, err, c.want, c.wanted)
					}
				}
			}
		})
	}
}
