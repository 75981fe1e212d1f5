package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/lease"
	"github.com/once-go/once/lease/driver"
)

// openStrategy opens the strategy the lease commands would on flags, as
// another holder of the same pool, whose releases free an ID at once where
// the driver has a release hold.
func openStrategy(t *testing.T, flags []string) driver.Strategy {
	t.Helper()
	fs := newFlagSet(&env{}, "test")
	bf := addBackendFlags(fs, true)
	if d := coord.Lookup(flagValue(flags, "--driver")); d != nil && d.ReleaseHold > 0 {
		bf.addReleaseHold(fs)
		flags = append(flags, "--release-hold", "0")
	}
	if err := fs.Parse(flags); err != nil {
		t.Fatal(err)
	}
	be, err := bf.open(t.Context(), true)
	if err != nil {
		t.Fatalf("opening %v: %v", flags, err)
	}
	t.Cleanup(func() { be.Close() })
	return be.Strategy
}

// flagValue returns the value after name in flags, "" if absent.
func flagValue(flags []string, name string) string {
	for i, f := range flags {
		if f == name && i+1 < len(flags) {
			return flags[i+1]
		}
	}
	return ""
}

// claimID takes machine ID id for an hour through s.
func claimID(t *testing.T, s driver.Strategy, id int) driver.Lease {
	t.Helper()
	c, ok := s.(driver.Claimer)
	if !ok {
		t.Fatalf("%s strategy cannot claim an ID", s.Name())
	}
	l, err := c.Claim(t.Context(), id, time.Hour)
	if err != nil {
		t.Fatalf("claiming machine ID %d: %v", id, err)
	}
	return l
}

// TestLeaseFree: free of a free ID says so and exits 4; of a held one it
// prints the holder, and without --force refuses (exit 2) saying what
// --force risks and releases nothing; with --force it releases that ID,
// which ls then shows free, and no other.
func TestLeaseFree(t *testing.T) {
	forListBackends(t, func(t *testing.T, b leaseBackend) {
		flags, claim := b.setup(t)
		claim(t, 2)
		free := func(args ...string) result {
			return cli("", append(append([]string{"lease", "free"}, flags...), args...)...)
		}

		if r := free("--id", "5", "--force"); r.code != exitNotHeld || r.stdout != "machine ID 5: free, nothing to release\n" || r.stderr != "" {
			t.Errorf("free of a free ID: %v\nwant exit 4 and the ID free", r)
		}
		rows := lsIn(t, flags)
		holder := "held by " + dash(rows[0].holder)
		if rows[0].holder == "" {
			holder = "held by a holder that recorded no name"
		}
		r := free("--id", "0")
		if r.code != exitUsage || len(r.lines()) != 1 || !strings.HasPrefix(r.stdout, "machine ID 0: "+holder+" (TTL ") ||
			!strings.Contains(r.stdout, "token "+rows[0].token+")") ||
			!strings.Contains(r.stderr, "--force") || !strings.Contains(r.stderr, "same values") {
			t.Errorf("free without --force: %v\nwant exit 2, the holder of machine ID 0 (%s, %s) and what --force risks", r, holder, rows[0].token)
		}
		if rows := lsIn(t, flags); !rows[0].held || !rows[1].held {
			t.Fatalf("free without --force released something: held %v", heldIDs(rows))
		}

		r = free("--id", "0", "--force")
		if r.code != 0 || r.stderr != "" || len(r.lines()) != 2 || !strings.HasPrefix(r.lines()[0], "machine ID 0: "+holder) ||
			!strings.HasPrefix(r.lines()[1], "machine ID 0: released; ") {
			t.Fatalf("free --force: %v\nwant exit 0, the holder, then released", r)
		}
		rows = lsAfterRelease(t, b, flags, func(rows []lsRow) bool { return !rows[0].held })
		if rows[0].held || !rows[1].held || len(heldIDs(rows)) != 1 {
			t.Errorf("after free --id 0 --force: held %v, want only machine ID 1", heldIDs(rows))
		}
	})
}

// TestLeaseFreeRace: a new holder takes the ID between free's list and its
// release (the listed holder released it, another claimed it): free
// --force leaves the new holding alone, says so, and the new holder still
// renews it.
func TestLeaseFreeRace(t *testing.T) {
	for _, b := range listBackends() {
		t.Run(b.name, func(t *testing.T) { // not parallel: beforeRelease is global
			flags, _ := b.setup(t)
			s := openStrategy(t, flags)
			const id = 9
			old := claimID(t, s, id)
			var renewed driver.Lease
			beforeRelease = func(listed driver.Slot) {
				if listed.MachineID != id || listed.Token != old.Token {
					t.Errorf("free listed %+v, want the claim of machine ID %d with its token", listed, id)
				}
				if err := s.Release(t.Context(), old); err != nil {
					t.Fatal(err)
				}
				time.Sleep(2 * time.Millisecond) // SQLite's clock has milliseconds
				renewed = claimID(t, s, id)
			}
			t.Cleanup(func() { beforeRelease = func(driver.Slot) {} })
			r := cli("", append(append([]string{"lease", "free"}, flags...), "--id", "9", "--force")...)
			if renewed.Token == "" {
				t.Fatalf("free did not list the ID: %v", r)
			}
			want := "machine ID 9: held by " + dash(lsIn(t, flags)[id].holder) + " (TTL "
			if r.code != 0 || len(r.lines()) != 2 || !strings.HasPrefix(r.lines()[1], want) ||
				!strings.Contains(r.lines()[1], "token "+tokenHash(renewed.Token)+") now: not the holding printed above, left alone") {
				t.Fatalf("free --force after a new holder took the ID: %v\nwant the new holding (%s) left alone", r, tokenHash(renewed.Token))
			}
			if row := lsIn(t, flags)[id]; !row.held || row.token != tokenHash(renewed.Token) {
				t.Errorf("machine ID %d after free: %+v, want the new holding %s", id, row, tokenHash(renewed.Token))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := s.Renew(ctx, renewed, time.Hour); err != nil {
				t.Errorf("the new holder's renewal after free: %v", err)
			}
			if _, err := s.Renew(ctx, old, time.Hour); !errors.Is(err, lease.ErrLost) {
				t.Errorf("the old holding's renewal after free: %v, want ErrLost", err)
			}
		})
	}
}

// TestLeaseFreeUsage: --id is required and 0..511; free takes no values.
func TestLeaseFreeUsage(t *testing.T) {
	base := []string{"lease", "free", "--driver", "sqlite", "--dsn", "x.db"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--id N is required"},
		{[]string{"--id", "512"}, "--id 512: out of range 0..511"},
		{[]string{"--id", "-1"}, "--id -1: out of range 0..511"},
		{[]string{"--id", "1", "extra"}, `unexpected argument "extra"`},
		{[]string{"--id", "1", "--wait-replicas", "1"}, `unknown flag "--wait-replicas"`},
	} {
		r := cli("", append(base, c.args...)...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, c.want) {
			t.Errorf("once %q: %v\nwant exit 2 and %q", c.args, r, c.want)
		}
	}
}
