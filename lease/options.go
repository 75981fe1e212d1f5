package lease

import (
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
	"github.com/once-go/once/nonce"
)

// Defaults and limits of [Options] that only the manager uses (those
// strategies and tools need are in package driver).
const (
	defaultAcquireTimeout = 60 * time.Second
	defaultHandoffSkew    = time.Second
	// noTimeout is Options.AcquireTimeout once validated when it was
	// negative: wait for a lease until Start's context ends.
	noTimeout time.Duration = -1
)

// minShortLease is the shortest lease duration of options marked by
// ShortLeases (builds with the oncetest tag only).
const minShortLease = 100 * time.Millisecond

// maxHandoffSkew bounds Options.HandoffSkew: clocks further apart than
// this need fixing, not a longer wait.
const maxHandoffSkew = time.Minute

// Options configure a [Manager]. The zero value of every field but
// Factories selects its default; [Start] rejects nonsense with [ErrConfig]
// and a message naming the option.
type Options struct {
	// Factories are the nonce factories the lease protects (required),
	// each made without nonce.Config.Fixed so that it generates nothing
	// before the lease is held: activated with each new lease, extended on
	// renewal, disabled on loss and shutdown. A factory belongs to one
	// manager at a time: Start refuses (ErrConfig) a factory listed twice,
	// or one that another manager protects, even while that manager has it
	// disabled after a loss, until that manager's Done is closed (Close, or
	// a final loss).
	Factories []*nonce.Factory
	// LeaseDuration is requested on every acquire and renew. Default: the
	// duration the strategy advises, if it advises one (1h for a
	// coordinator that is the application's own database), else 8h. At
	// least 30s. A process that dies without releasing and is not
	// restarted in the same place (see StateFile) keeps its machine ID
	// taken this long; a coordinator outage stops generation after this
	// long minus RenewInterval at the earliest.
	LeaseDuration time.Duration
	// RenewInterval is the longest time between renewals. It must be
	// longer than 10s (the safety margin: the manager trusts a lease until
	// 10s before the coordinator's expiry) and shorter than LeaseDuration
	// minus 10s. Default 30m, or LeaseDuration/2 if that is less.
	RenewInterval time.Duration
	// AcquireTimeout is the budget of the blocking acquisition in [Start]:
	// default 60s; negative: until Start's context ends. It also bounds
	// each re-acquisition attempt after a loss.
	AcquireTimeout time.Duration
	// Logger receives structured records of every lease operation (never
	// of nonce generation): each new lease at INFO, failures at WARN,
	// losses at ERROR, routine renewals at DEBUG. Default slog.Default().
	Logger *slog.Logger
	// Events, if set, receives an [Event] for every lease operation, from
	// the manager's goroutine (from Start's, for the first lease), one
	// call at a time: each new lease, renewal, retry, loss, release and
	// count of free machine IDs. The releases that follow a call which
	// outlived its deadline run outside the manager's goroutine and are
	// only logged (at INFO, "... outlived its deadline ..."). It must not
	// block: the manager waits for it. Hand events to a channel or a
	// counter.
	Events func(Event)
	// HandoffSkew is how far any holder's clock may be from the
	// coordinator's, and so from another holder's. A new holder of a
	// machine ID starts its timestamps after the last one the previous
	// holder could have emitted, allowing for this much skew. Default 1s,
	// at most 1m.
	HandoffSkew time.Duration
	// ReacquireDeterministic makes the manager acquire again after a loss
	// even when the strategy is deterministic (env, host list). By default
	// a deterministic strategy's loss is final: Done is closed.
	ReacquireDeterministic bool
	// StateFile, if set, is a file where the manager keeps the machine ID
	// and token it holds, so that a process restarted in the same place
	// reclaims its own unexpired lease instead of taking another ID (crash
	// loops then do not drain the pool). The strategy must be able to
	// reclaim (the SQL, Redis, etcd and Kubernetes strategies can). The
	// file is locked while the manager runs: two live managers cannot
	// share it. A record is reclaimed only when it proves
	// that its writer has stopped: it was written on this host in this
	// boot, and either it is the very file its writer held locked (a
	// restart in place, also in a new container on the same volume) or
	// its writer's process has exited (Linux: PID, start time and PID
	// namespace, read from /proc). Otherwise the manager acquires another
	// machine ID and logs why: a copy of a running process's file (cp -r,
	// rsync, a blue/green deploy on one host) never gives two processes
	// one machine ID, nor does a file copied to another machine, a record
	// from before a reboot or one written by an older version. Outside
	// Linux (no boot ID) no record is reclaimed. Give each instance its own
	// file, on storage that survives its restarts. Unix only.
	StateFile string
	// LowFreeIDs is the number of free machine IDs below which the manager
	// warns, when its strategy can list the IDs held (the SQL, Redis,
	// etcd and Kubernetes strategies can): after each acquire and renewal
	// it counts the IDs the coordinator does not list as held, reports
	// them in an [EventPool] event, and logs a warning below this
	// threshold. Default 64 (an eighth of the pool), or an eighth of the
	// range (rounded up) for a strategy restricted to fewer IDs
	// ([driver.Ranged], such as Options.MachineIDs of the SQL strategy),
	// whose free IDs are counted within that range; negative: never warn;
	// at most 512.
	LowFreeIDs int
	// RefuseKeyMismatch makes Start fail, with an error matching ErrConfig
	// and before it acquires anything, when a live holder in the pool
	// records another key fingerprint than the factories'
	// (nonce.Factory.Fingerprint): instances of one service with different
	// keys answer each other's IDs with "not found". Without it the
	// manager only warns ([EventKeyMismatch]), at start and with each count
	// of free IDs (see LowFreeIDs). Every holder records the fingerprint
	// of its factories' base key beside its name; a holder that recorded
	// none (the Elixir library, an older version, a factory without a key)
	// never counts as a mismatch. Needs a strategy that can list the IDs
	// held and factories with a base key (all the same).
	RefuseKeyMismatch bool
	// ReleaseTimeout bounds the release of a lease at shutdown and after a
	// loss, and, once more, Close's wait for strategy calls that outlived
	// their deadline (see [Manager.Close]). Default 5s.
	ReleaseTimeout time.Duration

	// test is empty unless the package is built with the oncetest tag.
	test testOptions
}

// configError reports a bad option.
func configError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// isNil reports whether v is nil or a nil pointer, map, slice, func,
// channel or interface wrapped in an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// validate returns o with defaults filled in and the timing it implies.
func (o Options) validate() (Options, timing, error) {
	if o.LeaseDuration == 0 {
		o.LeaseDuration = driver.DefaultLeaseDuration
	}
	short := o.test.shortLeases()
	minLease := driver.MinLeaseDuration
	if short {
		minLease = minShortLease
	}
	if o.LeaseDuration < minLease {
		return o, timing{}, configError("LeaseDuration %v is below the minimum %v", o.LeaseDuration, minLease)
	}
	tm := newTiming(o.LeaseDuration, short)
	if o.RenewInterval == 0 {
		o.RenewInterval = min(driver.DefaultRenewInterval, o.LeaseDuration/2)
	}
	if o.RenewInterval <= tm.margin {
		return o, tm, configError("RenewInterval %v must be longer than %v", o.RenewInterval, tm.margin)
	}
	if o.RenewInterval >= o.LeaseDuration-tm.margin {
		return o, tm, configError("RenewInterval %v must be shorter than LeaseDuration %v minus %v", o.RenewInterval, o.LeaseDuration, tm.margin)
	}
	switch {
	case o.AcquireTimeout == 0:
		o.AcquireTimeout = defaultAcquireTimeout
	case o.AcquireTimeout < 0:
		o.AcquireTimeout = noTimeout
	}
	switch {
	case o.HandoffSkew == 0:
		o.HandoffSkew = defaultHandoffSkew
	case o.HandoffSkew < 0 || o.HandoffSkew > maxHandoffSkew:
		return o, tm, configError("HandoffSkew %v is outside 0..%v", o.HandoffSkew, maxHandoffSkew)
	}
	switch {
	case o.ReleaseTimeout == 0:
		o.ReleaseTimeout = driver.DefaultReleaseTimeout
	case o.ReleaseTimeout < 0:
		return o, tm, configError("ReleaseTimeout %v is negative", o.ReleaseTimeout)
	}
	switch {
	case o.LowFreeIDs == 0:
		o.LowFreeIDs = defaultLowFreeIDs
	case o.LowFreeIDs > leasekit.IDs:
		return o, tm, configError("LowFreeIDs %d is above the %d machine IDs there are", o.LowFreeIDs, leasekit.IDs)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, tm, nil
}
