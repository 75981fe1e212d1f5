package cli

import (
	"fmt"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

var leaseFreeCmd = &command{
	name:    "lease free",
	usage:   "lease free --driver D [--mode hash|key] --dsn DSN [--table T] --id N [--force]",
	summary: "release machine ID N for a holder known to be gone (prints the holder; needs --force)",
	about: `Releases machine ID N on behalf of a holder that is gone (a process killed
before it could release, on a host that is not coming back), so that
another process can take the ID now rather than when the lease runs out.

It first prints who holds the ID, as "lease ls" shows it:

  machine ID 17: held by batch-1/4121 (TTL 7h58m2s, key fingerprint 5e0c1a7b, token 1a2b3c4d)

and, without --force, stops there with exit status 2. --force is for an
operator who knows that holder is gone: if it is alive, it keeps making
values with machine ID N while another process takes the ID and makes them
too, and the two can make the same value. Check the host and process named
first.

With --force it releases exactly the holding printed: the release names
that holding's token, so a holder that took the ID in the meantime is left
alone. Then it prints what the coordinator shows now:

  machine ID 17: released; free now

or "released; taken until its release hold ends" (Redis and etcd keep a
released ID taken for their release hold, 1s and 3s by default), or, when
a new holder took the ID in the meantime, "held by ... now: not the holding
printed above, left alone".

The release keeps what the coordinator knows of the gone holder's
timestamps: on Kubernetes, the bound that holder wrote in its own clock,
so the next holder of the ID makes its first value after that bound (up to
a lease duration after the gone holder's last renewal); SQL, Redis and
etcd judge by their own clock or the next holder's. A machine ID that is not held prints "machine
ID N: free, nothing to release" and exits 4.`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		bf := addBackendFlags(fs, true)
		id := fs.Int("id", -1, "the machine ID `N` (0..511) to release (required)")
		force := fs.Bool("force", false, "release it (without: print its holder only, and exit 2)")
		return fs, func(args []string) int {
			switch {
			case len(args) > 0:
				return fs.usageError(c, "unexpected argument %s", quoteValue(args[0]))
			case !given(fs, "id"):
				return fs.usageError(c, "--id N is required (the machine ID to release, 0..511)")
			case *id < 0 || *id > nonce.MaxMachineID:
				return fs.usageError(c, "--id %d: out of range 0..%d", *id, nonce.MaxMachineID)
			}
			who := "once " + c.name
			ctx, cancel := signalContext()
			defer cancel()
			be, err := bf.open(ctx, true)
			if err != nil {
				return fail(e, fs, c, err)
			}
			defer be.Close()
			slot, held, err := be.Find(ctx, *id)
			if err != nil {
				return fail(e, fs, c, err)
			}
			if !held {
				fmt.Fprintf(e.stdout, "machine ID %d: free, nothing to release\n", *id)
				return exitNotHeld
			}
			fmt.Fprintf(e.stdout, "machine ID %d: %s\n", *id, view(be, slot).describe())
			if !*force {
				errorf(e, who, "not released: run again with --force once you know that holder is gone; "+
					"if it is alive, it keeps using machine ID %d while another process takes it, and the two can make the same values", *id)
				return exitUsage
			}
			if slot.Token == "" {
				errorf(e, who, "machine ID %d: its holding has no token that a release can name; wait for it to expire", *id)
				return exitFail
			}
			beforeRelease(slot)
			if err := be.Strategy.Release(ctx, driver.Lease{MachineID: slot.MachineID, Token: slot.Token}); err != nil {
				return fail(e, fs, c, be.Reword(err))
			}
			now, held, err := be.Find(ctx, *id)
			switch {
			case err != nil:
				errorf(e, who, "released; reading machine ID %d again: %v", *id, err)
				return exitFail
			case !held:
				fmt.Fprintf(e.stdout, "machine ID %d: released; free now\n", *id)
			case now.Token == slot.Token || view(be, now).Released:
				fmt.Fprintf(e.stdout, "machine ID %d: released; taken until its release hold ends (TTL %s)\n", *id, view(be, now).ttl())
			default:
				fmt.Fprintf(e.stdout, "machine ID %d: %s now: not the holding printed above, left alone\n", *id, view(be, now).describe())
			}
			return exitOK
		}
	},
}

// beforeRelease runs between the list and the release of lease free
// (tests race a new holder in there).
var beforeRelease = func(driver.Slot) {}

// view is how lease ls shows s (for its expiring state, no threshold).
func view(be *coord.Backend, s driver.Slot) heldLease {
	return newPool([]driver.Slot{s}, 0, be.Released).Leases[0]
}
