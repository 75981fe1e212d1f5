package faultsuite

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// TestContenders600: 600 managers (goroutines, each its own strategy on
// one shared pool, as 600 processes' managers would be, but cheaper) call
// lease.Start at once on one namespace: exactly 512 start, each with a
// distinct machine ID that its factory then carries, and the coordinator
// counts 512 held IDs. Each of the other 88 is canceled as soon as it
// sees ErrExhausted (nobody releases during the test, so it can never
// win), or, tolerated, times out having met only conflicts and transient
// errors (still exactly 512 distinct winners and 88 refused); the
// acquire timeout (30s; SQLite 45s) is a safety net only: under
// -race on two busy CPUs SQLite needs seconds for 600 acquisitions, and
// waiting a timeout out would only cost time. The coordinators take turns
// (600 managers are CPU work), beside the suite's other parallel cases.
func Contenders600(t *testing.T) {
	t.Parallel()
	forEach(t, nil, func(t *testing.T, c Coordinator) {
		sp := c.Setup(t, false)
		pool, budget := 20, 30*time.Second
		if !c.Network {
			// SQLite: one writer; Go's pool queues better than
			// busy_timeout sleeps. Under -race the pure-Go engine needs
			// ~15ms per acquisition, so 600 take seconds.
			pool, budget = 1, 45*time.Second
		}
		cl := c.open(t, sp, nil, pool)
		const contenders = 600
		type result struct {
			m         *lease.Manager
			f         *nonce.Factory
			err       error
			took      time.Duration
			exhausted int // acquire attempts that ended with ErrExhausted
		}
		var (
			results = make([]result, contenders)
			cancels = make([]context.CancelFunc, contenders)
			start   = make(chan struct{})
			wg      sync.WaitGroup
			quiet   = slog.New(slog.DiscardHandler)
		)
		for i := range contenders {
			s := cl.mustStrategy(t, false)
			f, err := nonce.New(nonce.Config{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancels[i] = cancel
			wg.Go(func() {
				<-start
				t0 := time.Now()
				var exhausted int
				m, err := lease.Start(ctx, s, short(lease.Options{
					// No renewal during the test (the first is due after
					// 48s): the race for IDs is the subject, and 512
					// renewals queued behind the acquisitions on SQLite's
					// one connection would only add noise.
					LeaseDuration:  2 * time.Minute,
					RenewInterval:  time.Minute,
					AcquireTimeout: budget,
					Factories:      []*nonce.Factory{f},
					Logger:         quiet,
					Events: func(e lease.Event) {
						if e.Kind == lease.EventEnd && e.Op == lease.OpAcquire && errors.Is(e.Err, driver.ErrExhausted) {
							// Nobody releases during the test: exhausted
							// now, refused for good. Stop waiting.
							exhausted++
							cancel()
						}
					},
				}))
				results[i] = result{m, f, err, time.Since(t0), exhausted}
			})
		}
		t0 := time.Now()
		close(start)
		wg.Wait()
		all := time.Since(t0)
		defer func() { // close the winners, concurrently
			var cw sync.WaitGroup
			for i, r := range results {
				if r.m != nil {
					cw.Go(func() {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						r.m.Close(ctx)
						cancels[i]()
					})
				}
			}
			cw.Wait()
		}()

		owner := map[int]int{}
		var slowest time.Duration
		refused, unexhausted, timedOut := 0, 0, 0
		for i, r := range results {
			if r.err != nil {
				refused++
				if r.exhausted == 0 {
					// A contender may run its whole budget out on
					// conflicts and transient errors on a loaded machine
					// without ever reaching exhaustion; that is only
					// acceptable as a timeout once the budget is spent,
					// with the 512 distinct winners checked below.
					// Any other refusal is a bug.
					if errors.Is(r.err, lease.ErrTimeout) && r.took >= budget {
						timedOut++
						continue
					}
					if unexhausted++; unexhausted <= 3 {
						t.Errorf("contender %d refused without ever seeing the namespace exhausted: %v", i, r.err)
					}
				}
				continue
			}
			slowest = max(slowest, r.took)
			id := r.m.MachineID()
			if j, dup := owner[id]; dup {
				t.Errorf("machine ID %d held by contenders %d and %d", id, j, i)
			}
			owner[id] = i
			v, err := r.f.Sortable64()
			if err != nil {
				t.Errorf("contender %d (ID %d): Sortable64: %v", i, id, err)
			} else if p := nonce.Split64(v, time.Time{}); p.MachineID != id {
				t.Errorf("contender %d: value carries machine ID %d, lease %d", i, p.MachineID, id)
			}
		}
		if len(owner) != 512 || refused != contenders-512 {
			t.Errorf("%d contenders started and %d were refused, want 512 and %d", len(owner), refused, contenders-512)
		}
		ctx := ctxFor(t, 30*time.Second)
		if held, err := sp.Held(ctx); err != nil || held != 512 {
			t.Errorf("coordinator holds %d IDs (%v), want 512", held, err)
		}
		t.Logf("%d started (the last after %v), %d refused (%d of them timed out after %v without seeing the namespace exhausted); all done in %v",
			len(owner), slowest.Round(time.Millisecond), refused, timedOut, budget, all.Round(time.Millisecond))
	})
}
