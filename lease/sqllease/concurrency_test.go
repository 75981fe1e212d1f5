package sqllease_test

import (
	"database/sql"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// contenders is how many goroutines race for the 512 rows.
const contenders = 600

// racePool is the pool size for the races: 40 connections (PostgreSQL
// allows 100 by default), but 4 on SQLite, which has one writer at a time:
// a few connections queue in database/sql, many would sleep in SQLite's
// busy handler.
func racePool(d migrations.Dialect) int {
	if d == migrations.SQLite {
		return 4
	}
	return 40
}

// TestConcurrentAcquire: 600 goroutines, each with its own strategy (as
// separate processes would have), call Acquire on one table at once,
// repeating on ErrConflict (and ErrRetry, which SQLite's busy database can
// give): exactly 512 win, all distinct, the other 88 get ErrExhausted, and
// the table agrees.
func TestConcurrentAcquire(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 600 strategies contending for 512 rows take long")
	}
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		db.SetMaxOpenConns(racePool(d))
		table := newTable(t, db, d)
		ctx := ctxT(t)
		var (
			mu        sync.Mutex
			won       = make(map[int]driver.Lease)
			exhausted int
			failed    []error
			start     = make(chan struct{})
			wg        sync.WaitGroup
		)
		for range contenders {
			s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
			wg.Go(func() {
				<-start
				l, err := acquire(ctx, s, time.Hour)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					if prev, dup := won[l.MachineID]; dup {
						failed = append(failed, errors.New("machine ID handed out twice: "+prev.Token+" and "+l.Token))
					}
					won[l.MachineID] = l
				case errors.Is(err, driver.ErrExhausted):
					exhausted++
				default:
					failed = append(failed, err)
				}
			})
		}
		began := time.Now()
		close(start)
		wg.Wait()
		t.Logf("%d contenders on %v: %v", contenders, d, time.Since(began))
		for _, err := range failed[:min(len(failed), 5)] {
			t.Error(err)
		}
		if len(won) != 512 || exhausted != contenders-512 {
			t.Fatalf("%d won, %d exhausted; want 512 and %d", len(won), exhausted, contenders-512)
		}
		rows, err := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table}).Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if l, ok := won[r.ID]; !r.Held || !ok || hex.EncodeToString(r.Token) != l.Token {
				t.Fatalf("row %d (held %v) does not belong to its winner", r.ID, r.Held)
			}
		}
	})
}
