package redislease_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// TestContention600: 600 contenders, each its own strategy (as separate
// processes would be) on one NAME, race for 512 IDs: exactly 512 win, no ID
// is won twice, the other 88 see ErrExhausted (see race).
func TestContention600(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)
		const contenders = 600
		strategies := make([]*redislease.Strategy, contenders)
		for i := range strategies {
			strategies[i] = strategy(t, c, tg.mode, name, false)
		}
		won, exhausted, r := race(t, ctx, strategies)
		if r.unknown != 0 || r.retries != 0 {
			t.Errorf("a single server answered ErrRetry %d times (%d with a claim)", r.unknown+r.retries, r.unknown)
		}
		if len(won) != redislease.Capacity || exhausted != contenders-redislease.Capacity {
			t.Fatalf("%d winners, %d exhausted; want %d and %d", len(won), exhausted, redislease.Capacity, contenders-redislease.Capacity)
		}
		t.Logf("%d winners, %d exhausted, %d conflicts retried", len(won), exhausted, r.conflicts)
		// The server agrees: every ID held once, by its winner's token.
		for id, tok := range won {
			if got := value(t, c, tg.mode, name, id); got != tok {
				t.Fatalf("ID %d holds %q, want its winner's token %q", id, got, tok)
			}
		}
		if tg.mode == redislease.ModeHash {
			all := c.HGetAll(ctx, name).Val()
			if len(all) != 2*redislease.Capacity {
				t.Fatalf("hash has %d fields, want %d", len(all), 2*redislease.Capacity)
			}
			for id, tok := range won {
				if all["token."+strconv.Itoa(id)+"."+tok] != strconv.Itoa(id) {
					t.Fatalf("token field of ID %d missing", id)
				}
			}
		} else if n := c.Exists(ctx, idKeys(name)...).Val(); n != redislease.Capacity {
			t.Fatalf("%d keys exist, want %d", n, redislease.Capacity)
		}
	})
}

// retried counts what the contenders of race retried.
type retried struct {
	conflicts int // ErrConflict
	retries   int // ErrRetry that claimed nothing
	unknown   int // claims whose outcome was unknown, confirmed by a renewal
}

// race starts every strategy's Acquire at once, each in its own goroutine
// (as separate processes would), and retries as the lease manager would:
// ErrConflict, ErrRetry that claimed nothing, and a claim whose outcome is
// unknown (ErrRetry with a lease), which is the contender's if it renews.
// It returns each won ID's token and the number of contenders told
// ErrExhausted; an ID won twice or any other error fails t.
func race(t *testing.T, ctx context.Context, strategies []*redislease.Strategy) (won map[int]string, exhausted int, r retried) {
	t.Helper()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	won = map[int]string{}
	win := func(l driver.Lease) {
		if prev, dup := won[l.MachineID]; dup {
			t.Errorf("ID %d won twice (tokens %q and %q)", l.MachineID, prev, l.Token)
		}
		won[l.MachineID] = l.Token
	}
	for _, s := range strategies {
		wg.Go(func() {
			<-start
			for {
				l, err := s.Acquire(ctx, time.Minute)
				if errors.Is(err, driver.ErrRetry) && l.Token != "" {
					_, err := renewSoon(ctx, s, l)
					if err == nil {
						mu.Lock()
						win(l)
						r.unknown++
						mu.Unlock()
						return
					}
					if !errors.Is(err, driver.ErrLost) {
						t.Errorf("Renew of a claim with an unknown outcome: %v", err)
						return
					}
					continue
				}
				mu.Lock()
				switch {
				case err == nil:
					win(l)
				case errors.Is(err, driver.ErrExhausted):
					exhausted++
				case errors.Is(err, driver.ErrConflict):
					r.conflicts++
					mu.Unlock()
					continue
				case errors.Is(err, driver.ErrRetry):
					r.retries++
					mu.Unlock()
					continue
				default:
					t.Errorf("Acquire: %v (lease %d %q)", err, l.MachineID, l.Token)
				}
				mu.Unlock()
				return
			}
		})
	}
	close(start)
	wg.Wait()
	return won, exhausted, r
}
