package lease

import (
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/once-go/once/lease/internal/leasekit"
)

// Defaults and limits of [Options].
const (
	DefaultLeaseDuration = 8 * time.Hour
	// DefaultDBLeaseDuration is the lease duration a strategy whose
	// coordinator is the application's own database advises (see
	// [DurationDefaulter]).
	DefaultDBLeaseDuration = time.Hour
	DefaultRenewInterval   = 30 * time.Minute
	DefaultReleaseTimeout  = 5 * time.Second

	// MinLeaseDuration is the shortest lease the manager asks for, and the
	// shortest TTL it accepts from a coordinator (shorter is an illegal TTL).
	MinLeaseDuration = 30 * time.Second
	// SafetyMargin is subtracted from every granted TTL (the safe window
	// ends that long before the coordinator's expiry) and again from the
	// renewal time; the renew interval must be longer than it.
	SafetyMargin = 10 * time.Second

	// NoTimeout as Options.AcquireTimeout lets [Start] wait for a lease
	// until its context ends.
	NoTimeout time.Duration = -1
)

// Defaults of [Options] that only the manager uses.
const (
	defaultAcquireTimeout = 60 * time.Second
	defaultHandoffSkew    = time.Second
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
	// renewal, disabled on loss and shutdown. *nonce.Factory satisfies
	// [Factory]. A factory belongs to one manager at a time: Start refuses
	// (ErrConfig) a factory listed twice, or one that another manager
	// protects, even while that manager has it disabled after a loss,
	// until that manager's Done is closed (Close, or a final loss).
	Factories []Factory
	// LeaseDuration is requested on every acquire and renew. Default: the
	// strategy's DefaultLeaseDuration if it implements [DurationDefaulter]
	// (1h for a coordinator that is the application's own database), else
	// 8h. At least MinLeaseDuration (30s). A process that dies without
	// releasing and is not restarted in the same place (see StateFile)
	// keeps its machine ID taken this long; a coordinator outage stops
	// generation after this long minus RenewInterval at the earliest.
	LeaseDuration time.Duration
	// RenewInterval is the longest time between renewals. It must be
	// longer than SafetyMargin (10s) and shorter than LeaseDuration minus
	// SafetyMargin. Default 30m, or LeaseDuration/2 if that is less.
	RenewInterval time.Duration
	// AcquireTimeout is the budget of the blocking acquisition in [Start]
	// (default 60s; [NoTimeout]: until Start's context ends). It also bounds
	// each re-acquisition attempt after a loss.
	AcquireTimeout time.Duration
	// OnAcquired, if set, is called from the manager's goroutine (from
	// Start's, for the first lease) with the machine ID of each new lease,
	// after the factories run on it. It must not block for long.
	OnAcquired func(machineID int)
	// OnLost, if set, is called from the manager's goroutine with the loss
	// reason ([ErrLost], [ErrExpired], [ErrTimeout], [ErrExternal] or
	// [ErrIllegalTTL], possibly wrapped) after the factories have been
	// disabled. It must not block for long: renewals wait for it.
	OnLost func(reason error)
	// Logger receives structured records of every lease operation (never
	// of nonce generation). Default slog.Default().
	Logger *slog.Logger
	// Events, if set, receives an [Event] for every lease operation, from
	// the manager's goroutine, one call at a time. It must not block: the
	// manager waits for it. Hand events to a channel or a counter.
	Events func(Event)
	// HandoffSkew is how far any holder's clock may be from the
	// coordinator's, and so from another holder's. A new holder of a
	// machine ID starts its timestamps after the last one the previous
	// holder could have emitted, allowing for this much skew (see
	// handoffNotBefore in timing.go). Default 1s, at most 1m.
	HandoffSkew time.Duration
	// ReacquireDeterministic makes the manager acquire again after a loss
	// even when the strategy is deterministic (env, host list). By default
	// a deterministic strategy's loss is final: Done is closed.
	ReacquireDeterministic bool
	// StateFile, if set, is a file where the manager keeps the machine ID
	// and token it holds, with the host and boot that wrote them, so that a
	// restarted process on the same host reclaims its own unexpired lease
	// instead of taking another ID (crash loops then do not drain the
	// pool). The strategy must implement [Reclaimer]. The file is locked
	// while the manager runs: two live managers cannot share it. It belongs
	// on per-instance storage: a copy of it (a cloned image, a shared
	// volume) is reclaimed by at most one process, but on the same host
	// two copies can both reclaim the lease, and generate with one machine
	// ID until the earlier holder's next renewal tells it the lease is
	// lost. A record written by another host or boot is ignored (a fresh
	// lease is acquired). Unix only.
	StateFile string
	// LowFreeIDs is the number of free machine IDs below which the manager
	// warns, when its strategy implements [Lister]: after each acquire and
	// renewal it counts the IDs the coordinator does not list as held and
	// reports them in an [EventPool] event, logged at WARN (Result "low")
	// below this threshold. Default 64 (an eighth of the pool); negative:
	// never warn; at most 512.
	LowFreeIDs int
	// ReleaseTimeout bounds the release of a lease at shutdown and after a
	// loss, and, once more, Close's wait for strategy calls that outlived
	// their deadline (see [Manager.Close]). Default 5s.
	ReleaseTimeout time.Duration

	// test is empty unless the package is built with the oncetest tag
	// (see shortleases_oncetest.go).
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
		o.LeaseDuration = DefaultLeaseDuration
	}
	short := o.test.shortLeases()
	minLease := MinLeaseDuration
	if short {
		minLease = minShortLease
	}
	if o.LeaseDuration < minLease {
		return o, timing{}, configError("LeaseDuration %v is below the minimum %v", o.LeaseDuration, minLease)
	}
	tm := newTiming(o.LeaseDuration, short)
	if o.RenewInterval == 0 {
		o.RenewInterval = min(DefaultRenewInterval, o.LeaseDuration/2)
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
	case o.AcquireTimeout < 0 && o.AcquireTimeout != NoTimeout:
		return o, tm, configError("AcquireTimeout %v is negative (use lease.NoTimeout to wait without a bound)", o.AcquireTimeout)
	}
	if len(o.Factories) == 0 {
		return o, tm, configError("Factories is empty; the lease must protect at least one factory")
	}
	for i, f := range o.Factories {
		if isNil(f) {
			return o, tm, configError("Factories[%d] is nil (check the error of nonce.New)", i)
		}
		if e, ok := f.(interface{ Enabled() bool }); ok && e.Enabled() {
			return o, tm, configError("Factories[%d] is already generating: make it without nonce.Config.Fixed so that it waits for the lease", i)
		}
	}
	switch {
	case o.HandoffSkew == 0:
		o.HandoffSkew = defaultHandoffSkew
	case o.HandoffSkew < 0 || o.HandoffSkew > maxHandoffSkew:
		return o, tm, configError("HandoffSkew %v is outside 0..%v", o.HandoffSkew, maxHandoffSkew)
	}
	switch {
	case o.ReleaseTimeout == 0:
		o.ReleaseTimeout = DefaultReleaseTimeout
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
