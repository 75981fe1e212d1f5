package redislease

import (
	"strings"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// DefaultName is the key (hash mode) or hash tag (key mode) used when
// [Options.Name] is empty. The Elixir library's hash defaults to another
// name, "no_noncense_leases": a fleet that shares leases with it sets
// Options.Name to the name both use.
const DefaultName = "once_leases"

// DefaultCandidates is how many machine IDs an Acquire tries to claim
// before it reports [driver.ErrConflict].
const DefaultCandidates = 5

// DefaultReleaseHold is how long a released machine ID stays taken when
// [Options.ReleaseHold] is zero: the lease manager's default
// lease.Options.HandoffSkew.
const DefaultReleaseHold = time.Second

// DefaultWaitTimeout bounds each WAIT when [Options.WaitReplicas] is set
// and [Options.WaitTimeout] is zero.
const DefaultWaitTimeout = time.Second

// Capacity is the number of machine IDs a NAME holds (0..511).
const Capacity = leasekit.IDs

// maxNameLen bounds NAME so the 512 key names stay small.
const maxNameLen = 200

// Mode selects the data layout. There is no default: the zero value is
// rejected, because two layouts on one server would hand out an ID twice.
type Mode uint8

const (
	modeUnset Mode = iota
	// ModeHash keeps every lease in one hash NAME with per-field TTLs
	// (HSETEX, from Lua scripts). Needs Redis >= 8.0 or Valkey >= 9.0.
	// Compatible with the Elixir library's layout.
	ModeHash
	// ModeKey keeps one key {NAME}:<id> per lease, value = token, with a
	// key TTL; acquire/renew/release are Lua scripts. Works on any Redis >= 6,
	// Valkey and Redis Cluster (all keys share one hash slot).
	ModeKey
)

// String returns "hash", "key" or "unset".
func (m Mode) String() string {
	switch m {
	case ModeHash:
		return "hash"
	case ModeKey:
		return "key"
	}
	return "unset"
}

// ParseMode parses "hash" or "key" (as a CLI flag would spell them).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "hash":
		return ModeHash, nil
	case "key":
		return ModeKey, nil
	}
	return modeUnset, leasekit.Errorf(pkg, driver.ErrConfig, "mode %s is not \"hash\" or \"key\"", leasekit.Quote(s))
}

// Options configures a [Strategy].
type Options struct {
	// Mode is required: ModeHash or ModeKey. There is no automatic choice.
	Mode Mode
	// Name is the hash key (hash mode) or the hash tag of the per-ID keys
	// {Name}:<id> (key mode). Default [DefaultName]. It must not contain
	// '{' or '}' (they would break the single hash slot).
	Name string
	// Candidates is how many IDs an Acquire tries to claim, one script call
	// each, before it gives up with [driver.ErrConflict]. Each call claims
	// one named ID (so a call whose reply is lost can report the lease it
	// may have claimed) and, when a racing contender took it first, names
	// the next free ID to try. Default [DefaultCandidates].
	Candidates int
	// LowestFirst makes Acquire take the lowest free ID. By default it
	// starts at a random ID and moves to a free ID drawn at random, which
	// spreads boot-time contenders apart.
	LowestFirst bool
	// MachineIDs restricts the machine IDs Acquire and Claim take to a
	// range ([driver.IDRange]): processes that share the hash or keys with
	// others of another range (regions, services) never take their IDs.
	// Nil: every ID, 0..511. A range outside 0..511 or with Min > Max is
	// refused with driver.ErrConfig.
	MachineIDs *driver.IDRange
	// ReleaseHold is how long a machine ID stays taken after Release:
	// instead of deleting the lease, Release shortens it to ReleaseHold
	// (whole milliseconds, rounded up), so that nobody can acquire the ID
	// before that much time has passed since its holder stopped. Leases
	// report it as driver.Lease.ReleaseHold, and the lease manager's
	// hand-off guard relies on it: Redis cannot tell a released ID from an
	// expired one, and a new holder starts its timestamps after
	// CoordinatorNow + HandoffSkew - min(safety margin, ReleaseHold). Keep
	// it at least lease.Options.HandoffSkew for hand-offs without a wait.
	// Default [DefaultReleaseHold] (1s). Negative: Release deletes the
	// lease at once (ReleaseHold 0), and every Acquire's first timestamp
	// waits about HandoffSkew. Every holder sharing NAME must use the same
	// value (see the package documentation). On a NAME shared with the
	// Elixir library (Sharing) Release still holds the ID, but leases
	// report a ReleaseHold of 0: an Elixir holder deletes on release.
	ReleaseHold time.Duration
	// Sharing says whether NAME is shared with the Elixir library, whose
	// release deletes a lease at once (HSETEX FXX PX 0) rather than
	// holding it. On a shared NAME leases report ReleaseHold 0, so the
	// lease manager starts a new holder's timestamps after the server's
	// clock + HandoffSkew: every acquisition's first value waits about
	// HandoffSkew, and a previous holder whose clock ran ahead by up to
	// HandoffSkew is never repeated. Default [SharedByName]: shared in
	// hash mode when Name is [ElixirName]. [SharedWithElixir] needs hash
	// mode.
	Sharing Sharing
	// Holder says who holds the leases this strategy takes, as
	// [Strategy.List] reports it (Slot.Holder). Default: the host name (a
	// pod's name on Kubernetes) and the process ID, "host/pid". It is stored inside the lease's value,
	// after the random token ("<token>|<holder>"; see the package
	// documentation), cut to 200 printable ASCII bytes. The lease
	// manager's key fingerprint (driver.KeyFingerprint) goes before it:
	// "<token>|key=<fingerprint> <holder>".
	Holder string
	// WaitReplicas is how many replicas of NAME's master must acknowledge
	// every claim (Acquire, Claim, Reclaim) and renewal before the
	// strategy trusts it: the script is followed, on the same connection
	// to that master, by WAIT WaitReplicas WaitTimeout. A claim fewer
	// replicas acknowledged is returned beside [driver.ErrRetry] (the lease
	// manager releases it), a renewal is [driver.ErrRetry] (retried while
	// the last acknowledged one holds). Set it to the number of replicas
	// that a failover may promote; see the package documentation for
	// what that guarantees and what it does not. Default 0: no WAIT. It
	// needs a *redis.Client or *redis.ClusterClient.
	WaitReplicas int
	// WaitTimeout bounds each WAIT. Default [DefaultWaitTimeout] (1s);
	// keep it below the client's read timeout.
	WaitTimeout time.Duration
	// AcceptReplicaLoss lets the strategy run on a master with more
	// connected replicas than WaitReplicas, or whose replicas INFO
	// replication does not report, accepting that a failover to a replica
	// that missed the latest claim or renewal frees a machine ID in use
	// (until its holder's next renewal reports the loss). By default
	// [Strategy.Check] refuses such a master with [driver.ErrConfig].
	AcceptReplicaLoss bool
	// AcceptUnverifiedEviction lets the strategy run on a server that does
	// not report its eviction policy (INFO memory forbidden or incomplete),
	// accepting the risk that the server evicts held leases under memory
	// pressure and hands a machine ID in use to another process. By
	// default such a server is refused with [driver.ErrConfig]. A policy
	// that is read and unsafe is refused either way (see the package
	// documentation).
	AcceptUnverifiedEviction bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Mode != ModeHash && o.Mode != ModeKey {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.Mode must be ModeHash or ModeKey (got %d)", o.Mode)
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if len(o.Name) > maxNameLen || strings.ContainsAny(o.Name, "{}") || !leasekit.Printable(o.Name) {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.Name %s must be 1..%d printable bytes without '{' or '}'",
			leasekit.Quote(o.Name), maxNameLen)
	}
	if o.Candidates < 0 {
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.Candidates %d is negative", o.Candidates)
	}
	if o.Candidates == 0 {
		o.Candidates = DefaultCandidates
	}
	ids, err := leasekit.MachineIDs(pkg, o.MachineIDs)
	if err != nil {
		return o, err
	}
	o.MachineIDs = &ids
	if o.ReleaseHold == 0 {
		o.ReleaseHold = DefaultReleaseHold
	}
	switch {
	case o.WaitReplicas < 0:
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.WaitReplicas %d is negative", o.WaitReplicas)
	case o.WaitTimeout < 0:
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.WaitTimeout %v is negative", o.WaitTimeout)
	case o.WaitTimeout == 0:
		o.WaitTimeout = DefaultWaitTimeout
	case o.WaitTimeout < time.Millisecond:
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.WaitTimeout %v is below WAIT's 1ms resolution", o.WaitTimeout)
	}
	if o.Holder == "" {
		o.Holder = leasekit.Holder()
	}
	o.Holder = leasekit.CleanHolder(o.Holder)
	switch {
	case o.Sharing < SharedByName || o.Sharing > GoOnly:
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "unknown Options.Sharing %d", o.Sharing)
	case o.Sharing == SharedWithElixir && o.Mode != ModeHash:
		return o, leasekit.Errorf(pkg, driver.ErrConfig, "Options.Sharing is SharedWithElixir in key mode; "+
			"the Elixir library uses hash mode only: use ModeHash, or Sharing GoOnly")
	}
	return o, nil
}

// holdMillis is the hold Release applies, in whole milliseconds (rounded
// up; 0 for a negative ReleaseHold: delete at once).
func (o Options) holdMillis() int64 {
	if o.ReleaseHold <= 0 {
		return 0
	}
	return int64((o.ReleaseHold-1)/time.Millisecond) + 1
}
