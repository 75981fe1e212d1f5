package k8slease

import (
	"context"
	"fmt"
	"math"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Strategy is a [driver.Strategy] backed by coordination.k8s.io/v1 Lease
// objects. It is safe for concurrent use. Create it with [New] or [Open].
//
// A Strategy remembers which version of each Lease it has seen and since
// when: that is how it tells an expired holder from a live one (see the
// package documentation). Use one Strategy for the life of a process, as
// the lease manager does.
type Strategy struct {
	leases coordclient.LeaseInterface
	opts   Options
	seen   sightings
	left   leftovers
	// granted are the tokens this strategy handed out: only their
	// releases lower the hand-off evidence.
	granted grants
	// wall reads the wall clock for what the strategy writes (renewTime,
	// acquireTime, the hand-off evidence); tests skew it. Expiry uses
	// time.Now's monotonic reading only.
	wall func() time.Time
	// beforeTakeOver, set only by tests, runs between a claim's judgement
	// of a released or expired record and its update of that record.
	beforeTakeOver func(id int)
}

var (
	_ driver.Strategy  = (*Strategy)(nil)
	_ driver.Reclaimer = (*Strategy)(nil)
	_ driver.Lister    = (*Strategy)(nil)
	_ driver.Claimer   = (*Strategy)(nil)
	_ driver.Ranged    = (*Strategy)(nil)
)

// New returns a strategy on client, the application's clientset (its
// server, credentials and rate limits are used as they are; see
// [NewClientset] for one of the strategy's own). opts.Namespace is
// required. It validates opts (errors wrap [driver.ErrConfig]) but does no
// I/O; [Strategy.Check] verifies access.
func New(client kubernetes.Interface, opts Options) (*Strategy, error) {
	if client == nil {
		return nil, leasekit.Errorf("k8slease", driver.ErrConfig, "nil client")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Strategy{leases: client.CoordinationV1().Leases(o.Namespace), opts: o, wall: time.Now}, nil
}

// Name returns "kubernetes".
func (s *Strategy) Name() string { return "kubernetes" }

// DefaultLeaseDuration is the lease a manager asks for when its
// Options.LeaseDuration is zero: [LeaseDuration] (1 min), for the reasons
// given there (see [driver.DurationDefaulter]). Options.AcquireTimeout has
// no such default: pass [AcquireTimeout].
func (s *Strategy) DefaultLeaseDuration() time.Duration { return LeaseDuration }

// MachineIDs returns the range of machine IDs Acquire and Claim take
// (Options.MachineIDs; 0..511 when it is nil) ([driver.Ranged]).
func (s *Strategy) MachineIDs() driver.IDRange { return *s.opts.MachineIDs }

// Deterministic reports false: acquiring again may yield another ID.
func (s *Strategy) Deterministic() bool { return false }

// Namespace returns the namespace of the Lease objects.
func (s *Strategy) Namespace() string { return s.opts.Namespace }

// Prefix returns the name prefix.
func (s *Strategy) Prefix() string { return s.opts.Prefix }

// LeaseName returns the name of machine ID id's Lease: "<prefix>-<id>".
func (s *Strategy) LeaseName(id int) string { return s.name(id) }

// Holder returns the holder this strategy records (before the token).
func (s *Strategy) Holder() string { return s.opts.Holder }

// Check lists the pool's Leases once: it reports an unreachable server as
// [driver.ErrRetry] and missing permissions as [driver.ErrConfig]. It checks
// only the list permission; the others show on first use.
func (s *Strategy) Check(ctx context.Context) error {
	_, err := s.survey(ctx, false)
	if err != nil {
		return s.classify("check", "list", -1, err)
	}
	return nil
}

// Acquire claims a free machine ID of Options.MachineIDs for d (rounded
// up to whole seconds, the unit of leaseDurationSeconds). A machine ID is
// free when it has no Lease (Acquire creates one), its Lease was released
// (holder cleared), or this strategy has seen its record unchanged for
// the recorded duration (Acquire takes it over with an update conditioned
// on the resourceVersion it timed).
//
// A claim that a contender beat (409) only shows that the view it came
// from is out of date: Acquire tries up to Options.Candidates free IDs of
// one view, then looks at the pool again, and keeps going until it wins
// an ID or a consistent read finds every ID held. Errors
// wrap [driver.ErrExhausted] (a consistent read saw every ID held; the
// message names the namespace and the count), [driver.ErrConflict] (ctx
// ended after contenders took the IDs tried), [driver.ErrConfig] or
// [driver.ErrRetry] (see the package documentation).
//
// A process that has only just looked cannot tell a dead holder from a
// live one: with every ID held, ErrExhausted says when the first record
// will have stayed unchanged for its duration, and an Acquire after that
// takes it over (the strategy remembers what it saw between calls).
//
// When the outcome of a claim is unknown, Acquire returns that claim
// (MachineID and Token set) beside [driver.ErrRetry], for the caller to
// release.
func (s *Strategy) Acquire(ctx context.Context, d time.Duration) (driver.Lease, error) {
	secs, err := durationSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	// A look at the pool comes from the API server's watch cache, a few
	// milliseconds behind at most and far cheaper than a read from etcd;
	// a stale view costs at worst a 409 (every write is conditional). An
	// answer that every ID is held is confirmed with a consistent read.
	cached := true
	lost, tried := 0, 0 // races lost: in all, and of the current view
	held := -1          // IDs held in the last look, -1 before one
	for {
		if lost > 0 && ctx.Err() != nil {
			return driver.Lease{}, leasekit.Errorf("k8slease", driver.ErrConflict,
				"acquire in namespace %s: contenders took each of the %d free machine IDs tried before %v; the last look saw %d of %d held",
				leasekit.Quote(s.opts.Namespace), lost, context.Cause(ctx), held, s.opts.MachineIDs.Len())
		}
		if tried == s.opts.Candidates {
			s.left.drop()
			tried = 0
		}
		c, ok := s.left.take(s.opts.LowestFirst)
		if !ok {
			v, err := s.survey(ctx, cached)
			if err != nil {
				return driver.Lease{}, s.classify("acquire", "list", -1, err)
			}
			held = s.opts.MachineIDs.Len() - len(v.free)
			if len(v.free) > 0 {
				s.left.store(v, time.Now())
				tried = 0
				continue
			}
			if cached {
				cached = false
				continue
			}
			return driver.Lease{}, s.exhausted(v, lost)
		}
		l, won, err := s.claim(ctx, "acquire", c.id, c.rec, secs)
		if err != nil || won {
			return l, err
		}
		lost++
		tried++
	}
}

// exhausted is Acquire's error when a consistent read saw every ID held,
// after lost races lost to contenders.
func (s *Strategy) exhausted(v *view, lost int) error {
	ids := *s.opts.MachineIDs
	msg := fmt.Sprintf("acquire in namespace %s: no free machine ID in Options.MachineIDs %v: %d of %d held by a consistent read",
		leasekit.Quote(s.opts.Namespace), ids, ids.Len()-len(v.free), ids.Len())
	if lost > 0 {
		msg += fmt.Sprintf(", after contenders took %d machine IDs tried", lost)
	}
	if v.soonest < 0 {
		return leasekit.Errorf("k8slease", driver.ErrExhausted, "%s", msg)
	}
	return leasekit.Errorf("k8slease", driver.ErrExhausted,
		"%s; the first whose record stays unchanged expires in %v by this process's watch (lease.Options.AcquireTimeout must leave room for a whole lease duration: see k8slease.AcquireTimeout)",
		msg, v.soonest.Round(time.Millisecond))
}

// claim claims machine ID id, whose record is rec (nil: no Lease), for
// secs seconds: Create for a missing Lease, an Update conditioned on rec's
// resourceVersion for a released or expired one. won is false when a
// contender got there first (409 Conflict or AlreadyExists, or a Lease
// deleted meanwhile). On an error whose outcome is unknown the claim is
// returned beside it.
func (s *Strategy) claim(ctx context.Context, op string, id int, rec *coordv1.Lease, secs int32) (driver.Lease, bool, error) {
	identity := s.identity(ctx)
	rctx, cancel := s.request(ctx)
	defer cancel()
	now := s.wall()
	l := s.lease(id, identity, secs)
	if rec == nil {
		_, err := s.leases.Create(rctx, s.newRecord(id, identity, secs, now), metav1.CreateOptions{})
		switch {
		case err == nil:
			// No Lease: the ID was never held (k8slease never deletes
			// one), so there is no previous holder to wait for.
			l.PrevExpiry = time.Unix(0, 0)
			s.granted.add(id, identity)
			return l, true, nil
		case apierrors.IsAlreadyExists(err):
			return driver.Lease{}, false, nil
		}
		s.granted.add(id, identity)
		return l, false, s.classify(op+" (create)", "create", id, err)
	}
	if s.beforeTakeOver != nil {
		s.beforeTakeOver(id)
	}
	next := rec.DeepCopy()
	s.takeOver(next, identity, secs, now)
	_, err := s.leases.Update(rctx, next, metav1.UpdateOptions{})
	switch {
	case err == nil:
		l.PrevExpiry = evidence(rec)
		s.granted.add(id, identity)
		return l, true, nil
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		return driver.Lease{}, false, nil
	}
	s.granted.add(id, identity)
	return l, false, s.classify(op+" (update)", "update", id, err)
}

// lease is the lease of machine ID id held as identity for secs seconds.
func (s *Strategy) lease(id int, identity string, secs int32) driver.Lease {
	return driver.Lease{MachineID: id, Token: identity, TTL: time.Duration(secs) * time.Second}
}

// request derives the context of one API request, bounded by
// RequestTimeout.
func (s *Strategy) request(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.opts.RequestTimeout > 0 {
		return context.WithTimeout(ctx, s.opts.RequestTimeout)
	}
	return context.WithCancel(ctx)
}

// durationSeconds converts d to whole seconds, rounding up so the recorded
// duration is never below the requested one.
func durationSeconds(d time.Duration) (int32, error) {
	if d <= 0 {
		return 0, leasekit.Errorf("k8slease", driver.ErrConfig, "lease duration %v is not positive", d)
	}
	s := (d + time.Second - 1) / time.Second
	if s > math.MaxInt32 {
		return 0, leasekit.Errorf("k8slease", driver.ErrConfig, "lease duration %v is above leaseDurationSeconds' maximum", d)
	}
	return int32(s), nil
}
