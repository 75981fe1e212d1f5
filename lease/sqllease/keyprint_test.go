package sqllease_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/once-go/once/internal/keysuite"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestKeyFingerprint runs the key fingerprint suite (see keysuite) on
// PostgreSQL, MariaDB and SQLite; the Elixir library's holding is its
// claim statement, replayed, which records no holder.
func TestKeyFingerprint(t *testing.T) {
	var cs []keysuite.Coordinator
	for _, d := range dialects {
		cs = append(cs, keysuite.Coordinator{Name: d.String(), Setup: func(t *testing.T) (func() driver.Strategy, func(*testing.T) int) {
			db := openDB(t, d)
			table := newTable(t, db, d)
			newStrategy := func() driver.Strategy {
				return newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
			}
			return newStrategy, func(t *testing.T) int { return elixirHolding(t, db, d, table) }
		}})
	}
	keysuite.Run(t, cs)
}

func elixirHolding(t *testing.T, db *sql.DB, d migrations.Dialect, table string) int {
	t.Helper()
	id, err := elixirAcquire(ctxT(t), db, d, table, int64(time.Hour/time.Millisecond))
	if err != nil {
		t.Fatalf("Elixir acquire: %v", err)
	}
	return id
}
