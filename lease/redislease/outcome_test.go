package redislease_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/redislease"
)

// cutProxy forwards commands to upstream and replies back, until armed and
// a command named in cut arrives: that command reaches the server, but
// its reply is lost (the proxy drops the client's connection instead), as
// when a network fails after sending. The cut disarms the proxy: a client
// that retries gets through on its next connection, unless then holds an
// error reply: the next command named in cut is answered with it (and not
// forwarded), as by a server that refuses a retry (a failover's MOVED, a
// restart's LOADING).
func cutProxy(t *testing.T, upstream string, armed *atomic.Bool, then *atomic.Pointer[string], cut ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			var dropped atomic.Bool
			var wmu sync.Mutex
			wg.Go(func() { // replies: forwarded until the cut
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := u.Read(buf)
					if dropped.Load() {
						return
					}
					if n > 0 {
						wmu.Lock()
						_, werr := c.Write(buf[:n])
						wmu.Unlock()
						if werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			})
			wg.Go(func() { // commands: re-encoded one by one
				defer u.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					named := slices.Contains(cut, strings.ToUpper(args[0]))
					if named && !armed.Load() && then != nil {
						if reply := then.Swap(nil); reply != nil {
							wmu.Lock()
							_, err := io.WriteString(c, *reply+"\r\n")
							wmu.Unlock()
							if err != nil {
								return
							}
							continue
						}
					}
					last := named && armed.CompareAndSwap(true, false)
					if last {
						dropped.Store(true)
					}
					if _, err := u.Write(encodeCommand(args)); err != nil {
						return
					}
					if last {
						c.Close()
						return
					}
				}
			})
		}
	})
	return l.Addr().String()
}

func encodeCommand(args []string) []byte {
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

// claimCommands are the commands that write a claim, in either mode.
var claimCommands = []string{"EVALSHA", "EVAL", "HSETEX"}

// TestUnknownAcquireReturnsClaim: the claim reaches the server and its
// reply is lost. Acquire returns ErrRetry and, beside it, the very lease
// the server now holds, for the manager to release; releasing it frees
// the ID.
func TestUnknownAcquireReturnsClaim(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		var armed atomic.Bool
		cc := redis.NewClient(&redis.Options{Addr: cutProxy(t, c.Options().Addr, &armed, nil, claimCommands...), MaxRetries: -1})
		t.Cleanup(func() { cc.Close() })
		s := strategyOpts(t, cc, redislease.Options{Mode: tg.mode, Name: name, ReleaseHold: noHold})
		ctx := ctxT(t)
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		l, err := s.Acquire(ctx, time.Hour)
		armed.Store(false)
		if !errors.Is(err, driver.ErrRetry) {
			t.Fatalf("Acquire with its reply lost = %v, want ErrRetry", err)
		}
		if l.Token == "" {
			t.Fatalf("Acquire with its reply lost returned no claim (lease %+v); the server holds %d IDs",
				l, heldCount(t, c, tg.mode, name))
		}
		if got := value(t, c, tg.mode, name, l.MachineID); got != l.Token {
			t.Fatalf("returned claim is ID %d token %q; the server holds %q there", l.MachineID, l.Token, got)
		}
		if err := s.Release(ctx, l); err != nil {
			t.Fatalf("Release of the returned claim: %v", err)
		}
		if n := heldCount(t, c, tg.mode, name); n != 0 {
			t.Fatalf("%d IDs held after releasing the returned claim", n)
		}
	})
}

// heldCount counts the IDs with lease data under name.
func heldCount(t *testing.T, c *redis.Client, mode redislease.Mode, name string) int {
	t.Helper()
	n := 0
	for id := range redislease.Capacity {
		if held(t, c, mode, name, id) {
			n++
		}
	}
	return n
}

// TestReclaimReplacesToken: Reclaim hands out a new token in one step. The
// old token then renews and reclaims nothing (ErrLost), and two reclaims
// of one record racing each other leave exactly one winner, many times.
func TestReclaimReplacesToken(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		s := strategy(t, c, tg.mode, name, false)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Reclaim(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token}, time.Minute)
		if err != nil {
			t.Fatalf("Reclaim: %v", err)
		}
		if r.Token == l.Token || r.MachineID != l.MachineID {
			t.Fatalf("Reclaim returned ID %d token %q; want ID %d with a new token (old %q)", r.MachineID, r.Token, l.MachineID, l.Token)
		}
		if _, err := s.Renew(ctx, l, time.Minute); !errors.Is(err, driver.ErrLost) {
			t.Fatalf("Renew with the replaced token = %v, want ErrLost", err)
		}
		if got := value(t, c, tg.mode, name, l.MachineID); got != r.Token {
			t.Fatalf("server holds %q, want the new token %q", got, r.Token)
		}
		if tg.mode == redislease.ModeHash {
			if n := c.HLen(ctx, name).Val(); n != 2 {
				t.Fatalf("hash has %d fields after Reclaim, want 2 (the old token's field removed)", n)
			}
			if p := c.HPTTL(ctx, name, "token."+fmt.Sprint(l.MachineID)+"."+r.Token).Val(); len(p) != 1 || p[0] <= 30000 {
				t.Fatalf("new token field PTTL %v, want about a minute", p)
			}
		}

		const rounds = 50
		doubles := 0
		for range rounds {
			l, err := s.Renew(ctx, r, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			record := driver.Lease{MachineID: l.MachineID, Token: l.Token}
			var wins atomic.Int32
			var wg sync.WaitGroup
			var winner atomic.Pointer[driver.Lease]
			for range 2 {
				other := strategy(t, c, tg.mode, name, false)
				wg.Go(func() {
					got, err := other.Reclaim(ctx, record, time.Minute)
					switch {
					case err == nil:
						wins.Add(1)
						winner.Store(&got)
					case !errors.Is(err, driver.ErrLost):
						t.Errorf("racing Reclaim: %v", err)
					}
				})
			}
			wg.Wait()
			if wins.Load() != 1 {
				doubles++
				continue
			}
			r = *winner.Load()
		}
		if doubles != 0 {
			t.Fatalf("%d of %d rounds of two racing reclaims did not have exactly one winner", doubles, rounds)
		}
	})
}

// TestUnknownReclaimReturnsNewToken: a Reclaim whose reply is lost
// returns ErrRetry and the lease with the new token the server now holds.
func TestUnknownReclaimReturnsNewToken(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		var armed atomic.Bool
		cc := redis.NewClient(&redis.Options{Addr: cutProxy(t, c.Options().Addr, &armed, nil, claimCommands...), MaxRetries: -1})
		t.Cleanup(func() { cc.Close() })
		s := strategy(t, cc, tg.mode, name, false)
		ctx := ctxT(t)
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		r, err := s.Reclaim(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token}, time.Minute)
		armed.Store(false)
		if !errors.Is(err, driver.ErrRetry) {
			t.Fatalf("Reclaim with its reply lost = %v, want ErrRetry", err)
		}
		if got := value(t, c, tg.mode, name, l.MachineID); r.Token == "" || r.Token == l.Token || r.MachineID != l.MachineID || got != r.Token {
			t.Fatalf("Reclaim returned ID %d token %q; the server holds %q on ID %d (old token %q)",
				r.MachineID, r.Token, got, l.MachineID, l.Token)
		}
	})
}

// TestClientRetryReplaysClaim: go-redis retries a command whose reply was
// lost (MaxRetries, 3 by default) with the same arguments. A retried claim
// or reclaim that the server had already applied finds its own token and
// reports the lease, instead of a claim taken by someone else (Acquire
// would claim a second ID and leave the first held by a token nobody
// knows; Reclaim would report the lease lost while it is held).
func TestClientRetryReplaysClaim(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		var armed atomic.Bool
		cc := redis.NewClient(&redis.Options{Addr: cutProxy(t, c.Options().Addr, &armed, nil, claimCommands...)})
		t.Cleanup(func() { cc.Close() })
		s := strategyOpts(t, cc, redislease.Options{Mode: tg.mode, Name: name, LowestFirst: true})
		ctx := ctxT(t)
		if err := s.Check(ctx); err != nil {
			t.Fatal(err)
		}
		armed.Store(true)
		l, err := s.Acquire(ctx, time.Minute)
		if err != nil {
			t.Fatalf("Acquire retried by the client = %v", err)
		}
		if armed.Load() {
			t.Fatal("the claim was not cut")
		}
		if n := heldCount(t, c, tg.mode, name); n != 1 || value(t, c, tg.mode, name, l.MachineID) != l.Token {
			t.Fatalf("after a claim retried by the client the server holds %d IDs, ID %d = %q; want only the returned lease %q",
				n, l.MachineID, value(t, c, tg.mode, name, l.MachineID), l.Token)
		}
		armed.Store(true)
		r, err := s.Reclaim(ctx, driver.Lease{MachineID: l.MachineID, Token: l.Token}, time.Minute)
		if err != nil || r.MachineID != l.MachineID || value(t, c, tg.mode, name, l.MachineID) != r.Token {
			t.Fatalf("Reclaim retried by the client = ID %d %q, %v; the server holds %q",
				r.MachineID, r.Token, err, value(t, c, tg.mode, name, l.MachineID))
		}
	})
}

// TestRetriedClaimRefused: the claim is applied, its reply lost, and the
// client's retry refused by the server (a failover's MOVED, a restart's
// LOADING, READONLY from a demoted master). The error comes from the
// retry, so Acquire returns the claim the first attempt made beside
// ErrRetry, for the manager to release, as for any lost reply.
func TestRetriedClaimRefused(t *testing.T) {
	forEach(t, targets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		for _, reply := range []string{"-READONLY You can't write against a read only replica.", "-LOADING Redis is loading the dataset in memory"} {
			var armed atomic.Bool
			var then atomic.Pointer[string]
			cc := redis.NewClient(&redis.Options{Addr: cutProxy(t, c.Options().Addr, &armed, &then, claimCommands...),
				MaxRetries: 1, MinRetryBackoff: time.Millisecond})
			t.Cleanup(func() { cc.Close() })
			s := strategyOpts(t, cc, redislease.Options{Mode: tg.mode, Name: name, ReleaseHold: noHold})
			ctx := ctxT(t)
			if err := s.Check(ctx); err != nil {
				t.Fatal(err)
			}
			armed.Store(true)
			then.Store(&reply)
			l, err := s.Acquire(ctx, time.Hour)
			if !errors.Is(err, driver.ErrRetry) || then.Load() != nil {
				t.Fatalf("Acquire whose retry was refused = %v (refusal sent: %v), want ErrRetry", err, then.Load() == nil)
			}
			if n := heldCount(t, c, tg.mode, name); l.Token == "" || n != 1 || value(t, c, tg.mode, name, l.MachineID) != l.Token {
				t.Fatalf("%s: Acquire returned ID %d token %q beside %v; the server holds %d IDs", reply[:9], l.MachineID, l.Token, err, n)
			}
			if err := s.Release(ctx, l); err != nil || heldCount(t, c, tg.mode, name) != 0 {
				t.Fatalf("Release of the returned claim: %v, %d IDs held", err, heldCount(t, c, tg.mode, name))
			}
		}
	})
}
