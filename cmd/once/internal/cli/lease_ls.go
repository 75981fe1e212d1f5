package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/nonce"
)

// machineIDs is how many machine IDs a coordinator hands out (0..511).
const machineIDs = nonce.MaxMachineID + 1

var leaseLsCmd = &command{
	name:    "lease ls",
	usage:   "lease ls --driver D [--mode hash|key] --dsn DSN [--table T] [--expiring DUR] [--json]",
	summary: "list the held machine IDs and their holders; count held, free, expiring",
	about: `Prints one line per held machine ID, in ID order, under a header, then a
summary line:

  ID  STATE     TTL     FINGERPRINT  TOKEN     HOLDER
  3   held      59m58s  5e0c1a7b     9f86d081  api-7d9f8-x2k4q/1
  17  expiring  4m2s    -            1a2b3c4d  batch-1/4121
  held 2, free 510, expiring 1 (TTL under 30m0s)

A machine ID not listed is free: nobody holds it (with SQL, its row has
expired or was released). TTL is how long the lease has left by the
coordinator's judgement, rounded to the second, "-" when unknown: SQL and
Redis by the server's clock, etcd by its lease's TTL (whole seconds);
Kubernetes keeps no clock, so there it is the duration the holder recorded
(a process that has only just looked cannot tell a dead holder from a live
one). A lease is "expiring" when its TTL is under --expiring: unless its
holder renews it, the ID frees itself within that time. A holder with the
default settings renews before its TTL falls that low, so an expiring
lease's holder is late: gone, stuck, or cut off from the coordinator.

STATE "released" (etcd) is an ID released less than its release hold ago:
taken, with no holder, until the TTL shown. HOLDER is who took the lease
as it recorded itself (host/pid by default, the pod's name on Kubernetes),
"-" when it recorded nothing (the Elixir library, an older holder).
FINGERPRINT is the fingerprint of the base key the holder's nonce factories
use (8 hex digits; "once lease hold --key-env NAME" records its key's):
holders that show different ones cannot read each other's masked IDs. "-"
is unknown (the Elixir library, an older version, a holder without a key),
never a mismatch. TOKEN is the first 8 hex digits of the SHA-256 of the
lease's token: it tells holdings apart without showing the token, with
which anyone could renew or release the lease.

With --json it prints one JSON object instead, for scripts:

  {"capacity":512,"held":2,"free":510,"expiring":1,"expiring_under_ms":1800000,
   "leases":[{"machine_id":3,"ttl_ms":3598000,"expiring":false,
     "holder":"api-7d9f8-x2k4q/1","fingerprint":"5e0c1a7b","token":"9f86d081",
     "released":false},...]}

(on one line). "leases" lists the held IDs in ID order ([] when none);
ttl_ms is null when unknown, holder and fingerprint "" when none was
recorded. Fields may
be added; none will be removed or change meaning.`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		bf := addBackendFlags(fs, true)
		var expiring optionalDuration
		var asJSON bool
		fs.Var(&expiring, "expiring", "count a lease as expiring when its TTL is under `DUR` (default: the default renewal "+
			"interval of the driver's default lease: 30m; 30s for kubernetes)")
		fs.BoolVar(&asJSON, "json", false, "print one JSON object (see above) instead of the table")
		return fs, func(args []string) int {
			if len(args) > 0 {
				return fs.usageError(c, "unexpected argument %s", quoteValue(args[0]))
			}
			if expiring.d < 0 {
				return fs.usageError(c, "--expiring %v: must not be negative", expiring.d)
			}
			ctx, cancel := signalContext()
			defer cancel()
			be, err := bf.open(ctx, true)
			if err != nil {
				return fail(e, fs, c, err)
			}
			defer be.Close()
			slots, err := be.List(ctx)
			if err != nil {
				return fail(e, fs, c, err)
			}
			under := expiring.d
			if !expiring.set {
				under = min(driver.DefaultRenewInterval, bf.defaultDuration()/2)
			}
			p := newPool(slots, under, be.Released)
			var b []byte
			if asJSON {
				b, err = p.json()
			} else {
				b, err = p.table()
			}
			if err == nil {
				_, err = e.stdout.Write(b)
			}
			if err != nil {
				errorf(e, "once "+c.name, "writing standard output: %v", err)
				return exitFail
			}
			return exitOK
		}
	},
}

// pool is what "lease ls" prints. Its JSON form is documented in the
// command's help: add fields, never remove or change one.
type pool struct {
	Capacity        int         `json:"capacity"`
	Held            int         `json:"held"`
	Free            int         `json:"free"`
	Expiring        int         `json:"expiring"`
	ExpiringUnderMS int64       `json:"expiring_under_ms"`
	Leases          []heldLease `json:"leases"`
	under           time.Duration
}

// heldLease is one held machine ID.
type heldLease struct {
	MachineID int    `json:"machine_id"`
	TTLMS     *int64 `json:"ttl_ms"` // nil: unknown
	Expiring  bool   `json:"expiring"`
	Holder    string `json:"holder"`
	// Fingerprint is the holder's key fingerprint, "" when unknown.
	Fingerprint string `json:"fingerprint"`
	// Token is the first 8 hex digits of SHA-256(token).
	Token string `json:"token"`
	// Released: the ID was released and stays taken for its release hold.
	Released bool `json:"released"`
}

// newPool summarises slots (driver.Lister's answer); a lease is expiring
// when its known TTL is under under; released, if set, tells a released ID
// held for its release hold (etcd) from a live holding.
func newPool(slots []driver.Slot, under time.Duration, released func(driver.Slot) bool) *pool {
	p := &pool{Capacity: machineIDs, Held: len(slots), Free: machineIDs - len(slots),
		ExpiringUnderMS: under.Milliseconds(), Leases: make([]heldLease, 0, len(slots)), under: under}
	for _, s := range slots {
		l := heldLease{MachineID: s.MachineID, Holder: s.Holder, Fingerprint: s.Fingerprint, Token: tokenHash(s.Token),
			Released: released != nil && released(s)}
		if s.TTL > 0 {
			ms := s.TTL.Milliseconds()
			l.TTLMS = &ms
			l.Expiring = s.TTL < under && !l.Released
		}
		if l.Expiring {
			p.Expiring++
		}
		p.Leases = append(p.Leases, l)
	}
	return p
}

func (p *pool) json() ([]byte, error) {
	b, err := json.Marshal(p)
	return append(b, '\n'), err
}

// table renders the header, one line per held ID and the summary.
func (p *pool) table() ([]byte, error) {
	var b bytes.Buffer
	if len(p.Leases) > 0 {
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSTATE\tTTL\tFINGERPRINT\tTOKEN\tHOLDER")
		for _, l := range p.Leases {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\n", l.MachineID, l.state(), l.ttl(), dash(l.Fingerprint), dash(l.Token), dash(l.Holder))
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(&b, "held %d, free %d, expiring %d (TTL under %v)\n", p.Held, p.Free, p.Expiring, p.under)
	return b.Bytes(), nil
}

func (l heldLease) state() string {
	if l.Released {
		return "released"
	}
	if l.Expiring {
		return "expiring"
	}
	return "held"
}

func (l heldLease) ttl() string {
	if l.TTLMS == nil {
		return "-"
	}
	return (time.Duration(*l.TTLMS) * time.Millisecond).Round(time.Second).String()
}

// describe is one line about a held ID for lease free.
func (l heldLease) describe() string {
	if l.Released {
		return fmt.Sprintf("released, taken until its release hold ends (TTL %s)", l.ttl())
	}
	holder := "a holder that recorded no name"
	if l.Holder != "" {
		holder = l.Holder
	}
	return fmt.Sprintf("held by %s (TTL %s, key fingerprint %s, token %s)", holder, l.ttl(), dash(l.Fingerprint), dash(l.Token))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tokenHash is the first 8 hex digits of SHA-256(token), "" for none.
func tokenHash(token string) string {
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:4])
}
