package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/once-go/once/internal/leasehook"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// countingFactory is a factory (given through leasehook) that records
// what the manager did.
type countingFactory struct {
	id      atomic.Int64
	enabled atomic.Bool
}

func (f *countingFactory) Activate(id int, _, _ time.Time) error {
	f.id.Store(int64(id))
	f.enabled.Store(true)
	return nil
}
func (f *countingFactory) Enable(time.Time) error { f.enabled.Store(true); return nil }
func (f *countingFactory) Extend(time.Time)       {}
func (f *countingFactory) Disable()               { f.enabled.Store(false) }

// TestManagers: 600 lease managers (goroutines, one pool) start on one
// table at once (PostgreSQL, MariaDB, SQLite): exactly 512 hold distinct
// IDs with their factories active; each of the other 88 is still
// acquiring once the 512 have started, and has been told ErrExhausted (it
// is then stopped by ending its context, rather than left to wait out its
// acquire timeout); closing the winners frees every row.
func TestManagers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 600 managers contending for 512 rows take long")
	}
	forEach(t, testManagers)
}

// contender is one manager of TestManagers and what it has seen.
type contender struct {
	f         countingFactory
	cancel    context.CancelFunc
	exhausted chan struct{} // closed at its first acquire that ended ErrExhausted
	once      sync.Once
}

func (c *contender) event(e lease.Event) {
	if e.Kind == lease.EventEnd && e.Op == lease.OpAcquire && errors.Is(e.Err, driver.ErrExhausted) {
		c.once.Do(func() { close(c.exhausted) })
	}
}

func testManagers(t *testing.T, d migrations.Dialect, db *sql.DB) {
	db.SetMaxOpenConns(racePool(d))
	// The acquire timeout only bounds a failing run (the losers are
	// stopped as soon as the winners hold every row and they have seen
	// ErrExhausted), so it can be generous: SQLite under the race detector
	// on a loaded 2-core machine has taken more than 30 s for its 512
	// serialized claims through a pool of 4 connections. The winners'
	// releases, queued the same way when they all close at once, may each
	// wait as long.
	timeout, release := 2*time.Minute, time.Minute
	table := newTable(t, db, d)
	ctx, cancelAll := context.WithTimeout(t.Context(), 2*timeout+2*release)
	defer cancelAll()
	quiet := slog.New(slog.DiscardHandler)

	var (
		mu        sync.Mutex
		managers  []*lease.Manager
		factories = map[*lease.Manager]*countingFactory{}
		exhausted int
		wg        sync.WaitGroup
		start     = make(chan struct{})
		allWon    = make(chan struct{}) // closed when 512 managers have started
	)
	for i := range contenders {
		s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
		c := &contender{exhausted: make(chan struct{})}
		mctx, cancel := context.WithCancel(ctx)
		c.cancel = cancel
		t.Cleanup(cancel)
		started := make(chan struct{})
		go func() {
			select {
			case <-started:
				return
			case <-allWon:
			}
			select {
			case <-started:
			case <-c.exhausted:
				cancel() // a loser: every row is held by a started manager
			}
		}()
		wg.Go(func() {
			<-start
			m, err := lease.Start(leasehook.With(mctx, &c.f), s, lease.Options{
				AcquireTimeout: timeout,
				ReleaseTimeout: release,
				Logger:         quiet,
				Events:         c.event,
			})
			close(started)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				managers = append(managers, m)
				factories[m] = &c.f
				if len(managers) == 512 {
					close(allWon)
				}
			case isClosed(c.exhausted):
				exhausted++
			default:
				t.Errorf("manager %d: %v (without having seen ErrExhausted)", i, err)
			}
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d managers on %v: %v", contenders, d, time.Since(began))

	held := map[int]bool{}
	for _, m := range managers {
		id, f := m.MachineID(), factories[m]
		if held[id] || m.Err() != nil || int(f.id.Load()) != id || !f.enabled.Load() {
			t.Errorf("machine ID %d: held twice %v, Err %v, factory on %d enabled %v", id, held[id], m.Err(), f.id.Load(), f.enabled.Load())
		}
		held[id] = true
	}
	if len(managers) != 512 || len(held) != 512 || exhausted != contenders-512 {
		t.Fatalf("%d managers started on %d distinct IDs, %d were told ErrExhausted and stopped; want 512, 512, %d",
			len(managers), len(held), exhausted, contenders-512)
	}

	closeCtx, cancel := context.WithTimeout(ctx, 2*release+30*time.Second)
	defer cancel()
	for _, m := range managers {
		wg.Go(func() {
			if err := m.Close(closeCtx); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	// A loser stopped while a claim of its own was still queued (SQLite's
	// busy wait does not see the ended context) can take an ID the
	// winners' releases just freed; its manager releases that claim as
	// soon as the abandoned call returns (lease.Start's contract). So every
	// row must be free shortly after the winners closed; a leaked lease
	// would stay held for its whole TTL (hours).
	checker := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
	closed := time.Now()
	for {
		rows, err := checker.Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held := -1
		for _, r := range rows {
			if r.Held {
				held = r.ID
				break
			}
		}
		if held < 0 {
			if waited := time.Since(closed); waited > 100*time.Millisecond {
				t.Logf("last lease released %v after every manager closed (an abandoned claim)", waited.Round(time.Millisecond))
			}
			return
		}
		if time.Since(closed) > release {
			t.Fatalf("machine ID %d still held %v after every manager closed", held, release)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestManagerDefaultDuration: a manager whose options leave LeaseDuration
// zero asks an SQL table for the 1 h lease the strategy advises, not the
// manager's 8 h default: the row expires about an hour after the grant.
func TestManagerDefaultDuration(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		table := newTable(t, db, d)
		s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table})
		ctx := ctxT(t)
		var granted time.Duration
		m, err := lease.Start(leasehook.With(ctx, &countingFactory{}), s, lease.Options{
			Logger: slog.New(slog.DiscardHandler),
			Events: func(e lease.Event) {
				if e.Kind == lease.EventEnd && e.Op == lease.OpAcquire {
					granted = e.TTL
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(ctx)
		if granted != driver.DefaultDBLeaseDuration {
			t.Errorf("granted TTL %v, want %v", granted, driver.DefaultDBLeaseDuration)
		}
		row := rowOf(t, ctx, s, m.MachineID())
		if left := time.Until(row.ExpiresAt); left < 50*time.Minute || left > 70*time.Minute {
			t.Errorf("row %d expires in %v, want about 1h", m.MachineID(), left)
		}
	})
}
