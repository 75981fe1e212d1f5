package sqllease_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
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

// TestReclaimReportsPreviousExpiry: Reclaim reports the row's expires_at
// as it was just before the reclaim (PrevExpiry) and the database's clock
// (CoordinatorNow), for a lease still running and for one that expired
// without being taken over; it bumps lock_version once.
func TestReclaimReportsPreviousExpiry(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		for _, c := range []struct {
			name    string
			ttl     time.Duration
			expired bool
		}{{"running", time.Hour, false}, {"expired", 100 * time.Millisecond, true}} {
			l, err := s.Acquire(ctx, c.ttl)
			if err != nil {
				t.Fatal(err)
			}
			if c.expired {
				for rowOf(t, ctx, s, l.MachineID).Held {
					time.Sleep(50 * time.Millisecond)
				}
			}
			before := rowOf(t, ctx, s, l.MachineID)
			nl, err := s.Reclaim(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token}, 2*time.Hour)
			if err != nil || nl.MachineID != l.MachineID || nl.Token == l.Token || nl.TTL != 2*time.Hour {
				t.Fatalf("%s: Reclaim = %+v, %v", c.name, nl, err)
			}
			after := rowOf(t, ctx, s, l.MachineID)
			if !nl.PrevExpiry.Equal(before.ExpiresAt) {
				t.Errorf("%s: PrevExpiry %v, expires_at before the reclaim %v", c.name, nl.PrevExpiry, before.ExpiresAt)
			}
			if nl.CoordinatorNow.IsZero() || nl.CoordinatorNow.Before(l.CoordinatorNow) || nl.CoordinatorNow.After(after.ExpiresAt) ||
				nl.CoordinatorNow.After(nl.PrevExpiry) == !c.expired {
				t.Errorf("%s: CoordinatorNow %v; acquired at %v, previous expiry %v, new %v", c.name, nl.CoordinatorNow, l.CoordinatorNow, nl.PrevExpiry, after.ExpiresAt)
			}
			if after.LockVersion != before.LockVersion+1 || !after.Held || !after.ExpiresAt.After(before.ExpiresAt) {
				t.Errorf("%s: row %+v -> %+v", c.name, before, after)
			}
		}
	})
}

// TestReclaimReplacesToken: Reclaim writes a new token in the same
// statement: the returned lease renews, the old token's Renew is ErrLost
// and its Release leaves the reclaimed row alone.
func TestReclaimReplacesToken(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		s := newStrategy(t, db, sqllease.Options{Table: newTable(t, db, d)})
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		nl, err := s.Reclaim(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token}, time.Hour)
		if err != nil || nl.MachineID != l.MachineID || len(nl.Token) != 32 || nl.Token == l.Token {
			t.Fatalf("Reclaim = %+v, %v; want machine ID %d with a new token", nl, err, l.MachineID)
		}
		if _, err := s.Renew(ctx, l, time.Hour); !errors.Is(err, driver.ErrLost) {
			t.Errorf("Renew with the old token after Reclaim: %v; want ErrLost", err)
		}
		if err := s.Release(ctx, l); err != nil {
			t.Errorf("Release with the old token: %v", err)
		}
		if r := rowOf(t, ctx, s, l.MachineID); !r.Held || hex.EncodeToString(r.Token) != nl.Token {
			t.Errorf("row after the old token's calls: held %v, token %x; want held by %s", r.Held, r.Token, nl.Token)
		}
		if _, err := s.Renew(ctx, nl, time.Hour); err != nil {
			t.Errorf("Renew with the new token: %v", err)
		}
	})
}

// TestReclaimCopies: eight processes holding copies of one state file
// reclaim its record at once: exactly one wins, the others are ErrLost,
// and the row is held by the winner's token.
func TestReclaimCopies(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		table := newTable(t, db, d)
		s := newStrategy(t, db, sqllease.Options{Table: table})
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		saved := driver.Lease{MachineID: l.MachineID, Token: l.Token}
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []driver.Lease
			lost    int
		)
		for range 8 {
			p := newStrategy(t, db, sqllease.Options{Table: table})
			wg.Go(func() {
				nl, err := p.Reclaim(ctx, saved, time.Hour)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					winners = append(winners, nl)
				case errors.Is(err, driver.ErrLost):
					lost++
				default:
					t.Errorf("Reclaim = %+v, %v", nl, err)
				}
			})
		}
		wg.Wait()
		if len(winners) != 1 || lost != 7 {
			t.Fatalf("%d reclaims won, %d lost; want 1 and 7", len(winners), lost)
		}
		if r := rowOf(t, ctx, s, l.MachineID); !r.Held || hex.EncodeToString(r.Token) != winners[0].Token {
			t.Errorf("row after the reclaims: held %v, token %x; want the winner's %s", r.Held, r.Token, winners[0].Token)
		}
	})
}

// crashable is an SQL strategy whose releases fail while crashed is set,
// as if its process had been killed: the lease stays in the table and in
// the state file.
type crashable struct {
	*sqllease.Strategy
	crashed atomic.Bool
}

func (c *crashable) Release(ctx context.Context, l driver.Lease) error {
	if c.crashed.Load() {
		return fmt.Errorf("%w: killed (test)", driver.ErrRetry)
	}
	return c.Strategy.Release(ctx, l)
}

// activation records a factory's last Activate.
type activation struct {
	countingFactory
	mu        sync.Mutex
	notBefore time.Time
}

func (f *activation) Activate(id int, notBefore, validUntil time.Time) error {
	f.mu.Lock()
	f.notBefore = notBefore
	f.mu.Unlock()
	return f.countingFactory.Activate(id, notBefore, validUntil)
}

// TestManagerReclaimAfterCrash: a manager with a state file on an SQL
// table is killed (its release fails) and restarted at once: it reclaims
// its own machine ID, and its factories' first timestamp comes after the
// database's clock at the reclaim plus the skew allowance (so after
// anything the killed incarnation emitted), not after the hour the old
// lease still had to run.
func TestManagerReclaimAfterCrash(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		table := newTable(t, db, d)
		s := &crashable{Strategy: newStrategy(t, db, sqllease.Options{Table: table})}
		ctx := ctxT(t)
		state := filepath.Join(t.TempDir(), "lease.json")
		const skew = time.Second // Options.HandoffSkew
		start := func(f leasehook.Factory) *lease.Manager {
			m, err := lease.Start(leasehook.With(ctx, f), s, lease.Options{StateFile: state, HandoffSkew: skew, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m := start(&activation{})
		id := m.MachineID()
		old := rowOf(t, ctx, s.Strategy, id)
		s.crashed.Store(true)
		if err := m.Close(ctx); !errors.Is(err, driver.ErrRetry) {
			t.Fatalf("Close of the killed manager: %v", err)
		}
		s.crashed.Store(false)
		// The database's clock once the killed incarnation had stopped.
		probe, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		stopped := probe.CoordinatorNow
		if err := s.Release(ctx, probe); err != nil {
			t.Fatal(err)
		}

		f := &activation{}
		m = start(f)
		defer m.Close(ctx)
		if m.MachineID() != id {
			t.Fatalf("restarted on machine ID %d, want %d reclaimed", m.MachineID(), id)
		}
		reclaimed := rowOf(t, ctx, s.Strategy, id).ExpiresAt.Add(-driver.DefaultDBLeaseDuration) // the reclaim's clock
		f.mu.Lock()
		nb := f.notBefore
		f.mu.Unlock()
		if nb.Before(stopped) || nb.After(reclaimed.Add(skew)) {
			t.Errorf("notBefore = %v; want between %v (old incarnation stopped) and %v (reclaim plus skew), not near %v (old lease's expiry)",
				nb, stopped, reclaimed.Add(skew), old.ExpiresAt)
		}
	})
}
