package redislease_test

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/redislease"
)

// TestContention600: 600 contenders, each its own strategy (as separate
// processes would be) on one NAME, race for 512 IDs: exactly 512 win, no ID
// is won twice, the other 88 see ErrExhausted. Hash-mode contenders retry on
// ErrConflict as the manager would.
func TestContention600(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)
		const contenders = 600
		var (
			mu        sync.Mutex
			won       = map[int]string{}
			exhausted int
			conflicts int
			wg        sync.WaitGroup
			start     = make(chan struct{})
		)
		for range contenders {
			s := strategy(t, c, tg.mode, name, false)
			wg.Go(func() {
				<-start
				for {
					l, err := s.Acquire(ctx, time.Minute)
					mu.Lock()
					switch {
					case err == nil:
						if prev, dup := won[l.MachineID]; dup {
							t.Errorf("ID %d won twice (tokens %q and %q)", l.MachineID, prev, l.Token)
						}
						won[l.MachineID] = l.Token
					case errors.Is(err, lease.ErrExhausted):
						exhausted++
					case errors.Is(err, lease.ErrConflict):
						conflicts++
						mu.Unlock()
						continue
					default:
						t.Errorf("Acquire: %v", err)
					}
					mu.Unlock()
					return
				}
			})
		}
		close(start)
		wg.Wait()
		if len(won) != redislease.Capacity || exhausted != contenders-redislease.Capacity {
			t.Fatalf("%d winners, %d exhausted; want %d and %d", len(won), exhausted, redislease.Capacity, contenders-redislease.Capacity)
		}
		t.Logf("%d winners, %d exhausted, %d conflicts retried", len(won), exhausted, conflicts)
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
