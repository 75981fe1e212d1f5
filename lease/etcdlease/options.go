package etcdlease

import (
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// DefaultPrefix is the key prefix used when [Options.Prefix] is empty.
const DefaultPrefix = "once_leases/"

// DefaultCandidates is how many free machine IDs an Acquire tries, one
// transaction each, before it reports [driver.ErrConflict].
const DefaultCandidates = 5

// DefaultRequestTimeout bounds each etcd request when
// [Options.RequestTimeout] is zero.
const DefaultRequestTimeout = 5 * time.Second

// DefaultReleaseHold is how long a released machine ID stays taken when
// [Options.ReleaseHold] is zero: twice the lease manager's default
// HandoffSkew (1s), plus etcd's revoke tick (500ms), rounded up to etcd's
// whole-second TTL.
const DefaultReleaseHold = 3 * time.Second

// Capacity is the number of machine IDs under a prefix (0..511).
const Capacity = leasekit.IDs

// maxTTLSeconds is etcd's largest lease TTL (MaxLeaseTTL).
const maxTTLSeconds = 9_000_000_000

// maxPrefixLen bounds the prefix so keys stay small.
const maxPrefixLen = 200

// Options configures a [Strategy].
type Options struct {
	// Prefix is prepended to the decimal machine ID to form each key:
	// "once_leases/17". Default [DefaultPrefix]. It must not end with a
	// digit (prefixes "a" and "a1" would share the key "a17").
	Prefix string
	// Candidates is how many free IDs an Acquire tries before it gives up
	// with [driver.ErrConflict]. Default [DefaultCandidates].
	Candidates int
	// LowestFirst makes Acquire try the lowest free IDs. By default it
	// picks its candidates at random among the free IDs, which spreads
	// boot-time contenders apart.
	LowestFirst bool
	// MachineIDs restricts the machine IDs Acquire and Claim take to a
	// range ([driver.IDRange]): processes that share the prefix with
	// others of another range (regions, services) never take their IDs.
	// Nil: every ID, 0..511. A range outside 0..511 or with Min > Max is
	// refused with driver.ErrConfig.
	MachineIDs *driver.IDRange
	// RequestTimeout bounds every etcd request (a call's context bounds it
	// too). Default [DefaultRequestTimeout]; negative: only the context.
	RequestTimeout time.Duration
	// ReleaseHold is how long a machine ID stays taken after Release: the
	// key moves to an etcd lease of that TTL (whole seconds, rounded up;
	// etcd may grant more) instead of being deleted, so that nobody can
	// acquire the ID before that much time has passed since its holder
	// stopped generating. Leases report it as driver.Lease.ReleaseHold, and
	// the lease manager's hand-off guard relies on it (see the package
	// documentation). Keep it at least twice lease.Options.HandoffSkew for
	// hand-offs without a wait. Default [DefaultReleaseHold] (3s).
	// Negative: Release deletes the key at once (ReleaseHold 0), and every
	// Acquire's first timestamp waits about twice HandoffSkew. Every holder
	// sharing a prefix must use the same value.
	ReleaseHold time.Duration
	// Holder says who holds the leases this strategy takes, as
	// [Strategy.List] reports it (Slot.Holder). Default: the host name (a
	// pod's name on Kubernetes) and the process ID, "host/pid". It is stored in the key's value after
	// the random token ("<token>|<holder>"), cut to 200 printable ASCII
	// bytes; the lease manager's key fingerprint (driver.KeyFingerprint)
	// goes before it: "<token>|key=<fingerprint> <holder>".
	Holder string
}

func (o Options) withDefaults() (Options, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if len(o.Prefix) > maxPrefixLen || !leasekit.Printable(o.Prefix) {
		return o, leasekit.Errorf("etcdlease", driver.ErrConfig, "Options.Prefix %s must be 1..%d printable bytes",
			leasekit.Quote(o.Prefix), maxPrefixLen)
	}
	if last := o.Prefix[len(o.Prefix)-1]; '0' <= last && last <= '9' {
		return o, leasekit.Errorf("etcdlease", driver.ErrConfig,
			"Options.Prefix %s must not end with a digit (end it with a separator such as '/')", leasekit.Quote(o.Prefix))
	}
	switch {
	case o.Candidates < 0:
		return o, leasekit.Errorf("etcdlease", driver.ErrConfig, "Options.Candidates %d is negative", o.Candidates)
	case o.Candidates == 0:
		o.Candidates = DefaultCandidates
	}
	ids, err := leasekit.MachineIDs("etcdlease", o.MachineIDs)
	if err != nil {
		return o, err
	}
	o.MachineIDs = &ids
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Holder == "" {
		o.Holder = leasekit.Holder()
	}
	o.Holder = leasekit.CleanHolder(o.Holder)
	switch {
	case o.ReleaseHold == 0:
		o.ReleaseHold = DefaultReleaseHold
	case o.ReleaseHold > maxTTLSeconds*time.Second:
		return o, leasekit.Errorf("etcdlease", driver.ErrConfig, "Options.ReleaseHold %v is above etcd's maximum TTL", o.ReleaseHold)
	}
	return o, nil
}

// holdSeconds is the TTL of the etcd lease a released key moves to (whole
// seconds, rounded up); 0 for a negative ReleaseHold: delete at once.
func (o Options) holdSeconds() int64 {
	if o.ReleaseHold <= 0 {
		return 0
	}
	return int64((o.ReleaseHold + time.Second - 1) / time.Second)
}

// releaseHold is what every lease reports as driver.Lease.ReleaseHold.
func (o Options) releaseHold() time.Duration {
	return time.Duration(o.holdSeconds()) * time.Second
}
