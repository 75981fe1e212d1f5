package redislease_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/lease/redislease"
	"github.com/once-go/once/nonce"
)

// The Elixir library's statements, replayed as it sends them
// (NoNoncense.MachineId.Strategy.RedisLease): acquire is HKEYS, then
// HSETEX FNX of the lowest free ID; renew the same with FXX; release the
// same with FXX PX 0, which deletes both fields.
func elixirFields(id int, token string) []any {
	sid := strconv.Itoa(id)
	return []any{"FIELDS", "2", sid, token, "token." + sid + "." + token, sid}
}

func elixirSet(ctx context.Context, c *redis.Client, name, cond string, ttlMS int64, id int, token string) (int64, error) {
	return c.Do(ctx, append([]any{"HSETEX", name, cond, "PX", strconv.FormatInt(ttlMS, 10)}, elixirFields(id, token)...)...).Int64()
}

// elixirAcquire replays the Elixir acquire: the lowest ID among the
// integer-named fields of HKEYS that are not "token." fields.
func elixirAcquire(ctx context.Context, t *testing.T, c *redis.Client, name string, ttlMS int64) (int, string) {
	t.Helper()
	keys, err := c.HKeys(ctx, name).Result()
	if err != nil {
		t.Fatal(err)
	}
	held := map[int]bool{}
	for _, k := range keys {
		if len(k) >= 6 && k[:6] == "token." {
			continue
		}
		if n, err := strconv.Atoi(k); err == nil {
			held[n] = true
		}
	}
	for id := range redislease.Capacity {
		if held[id] {
			continue
		}
		token := leasekit.NewTokenString()
		n, err := elixirSet(ctx, c, name, "FNX", ttlMS, id, token)
		if err != nil || n != 1 {
			t.Fatalf("Elixir acquire of ID %d: %d, %v", id, n, err)
		}
		return id, token
	}
	t.Fatal("Elixir acquire: exhausted")
	return 0, ""
}

// generate draws sortable values from f until stop, about 20 a
// millisecond (a busy service, not a benchmark), into seen.
func generate(t *testing.T, f *nonce.Factory, stop time.Time, seen map[uint64]bool) (dups int) {
	t.Helper()
	for time.Now().Before(stop) {
		for range 20 {
			v, err := f.Sortable64()
			if err != nil {
				t.Fatalf("Sortable64: %v", err)
			}
			if seen[v] {
				dups++
			}
			seen[v] = true
		}
		time.Sleep(time.Millisecond)
	}
	return dups
}

// TestElixirReleaseHandoff: an Elixir holder whose clock runs 800ms ahead
// (inside the 1s HandoffSkew) releases its ID as the Elixir library does,
// deleting it (HSETEX FXX PX 0), and a Go manager takes the ID at once. On
// a hash shared with the Elixir library (Options.Sharing) the Go
// successor starts its timestamps after the server's clock + HandoffSkew,
// above every value the Elixir holder drew, and repeats none of them.
func TestElixirReleaseHandoff(t *testing.T) {
	const ahead = 800 * time.Millisecond
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		c := client(t, tg.srv)
		name := namespace(t, c)
		ctx := ctxT(t)

		id, token := elixirAcquire(ctx, t, c, name, 60_000)
		old, err := nonce.New(nonce.Config{Fixed: true, MachineID: id, Now: func() time.Time { return time.Now().Add(ahead) }})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[uint64]bool{}
		generate(t, old, time.Now().Add(100*time.Millisecond), seen)
		oldLast, err := old.Sortable64()
		if err != nil {
			t.Fatal(err)
		}
		seen[oldLast] = true
		if n, err := elixirSet(ctx, c, name, "FXX", 0, id, token); err != nil || n != 1 {
			t.Fatalf("Elixir release: %d, %v", n, err)
		}

		o := redislease.Options{Mode: redislease.ModeHash, Name: name, LowestFirst: true}
		o.Sharing = redislease.SharedWithElixir
		s := strategyOpts(t, c, o)
		f, err := nonce.New(nonce.Config{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := lease.Start(ctx, s, lease.Options{Factories: []lease.Factory{f}, LeaseDuration: time.Minute,
			RenewInterval: 20 * time.Second, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		if m.MachineID() != id {
			t.Fatalf("Go successor got ID %d, want the released %d", m.MachineID(), id)
		}
		first, err := f.Sortable64()
		if err != nil {
			t.Fatal(err)
		}
		dups := generate(t, f, time.Now().Add(1200*time.Millisecond), seen)
		if seen[first] {
			dups++
		}
		lastOld, firstNew := nonce.Split64(oldLast, old.Epoch()).Time, nonce.Split64(first, f.Epoch()).Time
		t.Logf("Elixir holder's last timestamp %s, Go successor's first %s (%+v later); %d values repeated",
			lastOld.Format(time.StampMilli), firstNew.Format(time.StampMilli), firstNew.Sub(lastOld), dups)
		if !firstNew.After(lastOld) || dups > 0 {
			t.Fatalf("the Go successor overlaps the Elixir holder: first timestamp %v after its last, %d values repeated",
				firstNew.Sub(lastOld), dups)
		}
	})
}

// TestSharingDefaults: a hash named as the Elixir library names its own
// counts as shared unless Sharing says GoOnly; key mode never does, and
// refuses SharedWithElixir. A shared NAME's leases report ReleaseHold 0
// (the manager then waits HandoffSkew from the server's clock), and its
// Release still holds the ID for ReleaseHold.
func TestSharingDefaults(t *testing.T) {
	forEach(t, hashTargets, func(t *testing.T, tg target) {
		// A database of its own: the tests elsewhere use unique names, this
		// one the Elixir library's default.
		c := redis.NewClient(&redis.Options{Addr: testenv.Redis(t, tg.srv), DB: 9, ContextTimeoutEnabled: true})
		t.Cleanup(func() { c.Close() })
		t.Cleanup(func() { cleanup(c, redislease.ElixirName) })
		ctx := ctxT(t)
		for _, x := range []struct {
			mode    redislease.Mode
			name    string
			sharing redislease.Sharing
			want    time.Duration
		}{
			{redislease.ModeHash, redislease.ElixirName, redislease.SharedByName, 0},
			{redislease.ModeHash, redislease.ElixirName, redislease.GoOnly, redislease.DefaultReleaseHold},
			{redislease.ModeHash, "elsewhere_" + leasekit.NewTokenString()[:6], redislease.SharedByName, redislease.DefaultReleaseHold},
			{redislease.ModeKey, redislease.ElixirName, redislease.SharedByName, redislease.DefaultReleaseHold},
		} {
			cleanup(c, x.name)
			s := strategyOpts(t, c, redislease.Options{Mode: x.mode, Name: x.name, Sharing: x.sharing, LowestFirst: true})
			l, err := s.Acquire(ctx, time.Minute)
			if err != nil {
				t.Fatalf("%v %s sharing %d: %v", x.mode, x.name, x.sharing, err)
			}
			r, err := s.Renew(ctx, l, time.Minute)
			if err != nil || l.ReleaseHold != x.want || r.ReleaseHold != x.want {
				t.Errorf("%v %s sharing %d: ReleaseHold %v, renewed %v (%v); want %v", x.mode, x.name, x.sharing, l.ReleaseHold, r.ReleaseHold, err, x.want)
			}
			if err := s.Release(ctx, l); err != nil {
				t.Fatal(err)
			}
			if p := pttl(t, c, x.mode, x.name, l.MachineID); p <= 0 || p > 1000 {
				t.Errorf("%v %s sharing %d: %d ms left after Release, want the 1s hold", x.mode, x.name, x.sharing, p)
			}
			cleanup(c, x.name)
		}
	})
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, o := range []redislease.Options{
		{Mode: redislease.ModeKey, Sharing: redislease.SharedWithElixir},
		{Mode: redislease.ModeHash, Sharing: 7},
		{Mode: redislease.ModeHash, Sharing: -1},
	} {
		if _, err := redislease.New(c, o); !errors.Is(err, lease.ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", o, err)
		}
	}
}
