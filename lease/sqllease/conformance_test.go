package sqllease_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/leasetest"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// TestConformance runs the lease/leasetest suite on PostgreSQL, MariaDB
// and SQLite: each check gets its own fresh table; Broken is a strategy on
// a dead port (PostgreSQL, MariaDB) or a closed pool (SQLite).
func TestConformance(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		leasetest.Run(t, leasetest.Harness{
			New: func(t *testing.T) func() driver.Strategy {
				table := newTable(t, db, d)
				return func() driver.Strategy {
					return newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
				}
			},
			Range: func(t *testing.T, r driver.IDRange) func() (driver.Strategy, error) {
				table := newTable(t, db, d)
				return func() (driver.Strategy, error) {
					return sqllease.New(db, sqllease.Options{Dialect: d, Table: table, MachineIDs: &r})
				}
			},
			Broken: func(t *testing.T) driver.Strategy {
				return newStrategy(t, unreachable(t, d), sqllease.Options{Dialect: d})
			},
			ClockTick: clockTick(d),
		})
	})
}

// clockTick is the resolution of the database clock that decides whether a
// row is free: SQLite's strftime has milliseconds (a row released in the
// current millisecond is free from the next); the servers have
// microseconds.
func clockTick(d migrations.Dialect) time.Duration {
	if d == migrations.SQLite {
		return time.Millisecond
	}
	return time.Microsecond
}
