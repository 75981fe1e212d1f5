package k8slease

import (
	"context"
	"errors"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// maxRewrites bounds the read-and-update rounds of one call: a 409 on an
// update we hold means our own record changed between the read and the
// write (a replayed or abandoned call of ours, or a copy of our state
// file reclaiming it); the next round tells which.
const maxRewrites = 3

// rewritten is the outcome of rewrite.
type rewritten struct {
	lost string // why the Lease is not held with the token; "" when it is
	verb string // of the request that failed
	sent bool   // the failed request was an update: its outcome is unknown
}

// rewrite reads machine ID id's Lease and, if its holderIdentity is
// identity, applies edit (given the wall clock before sending) and updates
// it, conditioned on the resourceVersion read.
func (s *Strategy) rewrite(ctx context.Context, id int, identity string, edit func(*coordv1.Lease, time.Time)) (rewritten, error) {
	for range maxRewrites {
		rctx, cancel := s.request(ctx)
		rec, err := s.leases.Get(rctx, s.name(id), metav1.GetOptions{})
		cancel()
		switch {
		case apierrors.IsNotFound(err):
			return rewritten{lost: "its Lease no longer exists"}, nil
		case err != nil:
			return rewritten{verb: "get"}, err
		}
		switch h := holderOf(rec); {
		case h == "":
			return rewritten{lost: "its Lease was released"}, nil
		case h != identity:
			return rewritten{lost: "its Lease is held by " + leasekit.Quote(holderName(h))}, nil
		}
		next := rec.DeepCopy()
		now := s.wall()
		edit(next, now)
		rctx, cancel = s.request(ctx)
		_, err = s.leases.Update(rctx, next, metav1.UpdateOptions{})
		cancel()
		switch {
		case err == nil:
			return rewritten{}, nil
		case apierrors.IsConflict(err):
			continue
		case apierrors.IsNotFound(err):
			return rewritten{lost: "its Lease was deleted"}, nil
		}
		return rewritten{verb: "update", sent: true}, err
	}
	return rewritten{verb: "update"}, errors.New("the Lease changed between every read and update (409 Conflict)")
}

// checkLease rejects a lease that cannot be ours: [driver.ErrLost].
func checkLease(op string, l driver.Lease) error {
	if !leasekit.ValidID(l.MachineID) || l.Token == "" {
		return leasekit.Errorf("k8slease", driver.ErrLost, "%s: malformed lease (machine ID %d, token of %d bytes)", op, l.MachineID, len(l.Token))
	}
	return nil
}

// Renew extends l: it reads l's Lease and, if its holderIdentity is still
// l.Token, updates renewTime, leaseDurationSeconds (d rounded up to whole
// seconds) and the hand-off evidence, conditioned on the resourceVersion
// read. Replaying a renewal succeeds (the token does not change). Errors
// wrap [driver.ErrLost] (the Lease is gone, released or held by someone
// else), [driver.ErrRetry] (unknown outcome) or [driver.ErrConfig].
func (s *Strategy) Renew(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	secs, err := durationSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	if err := checkLease("renew", l); err != nil {
		return driver.Lease{}, err
	}
	r, err := s.rewrite(ctx, l.MachineID, l.Token, func(rec *coordv1.Lease, now time.Time) {
		s.hold(rec, l.Token, secs, now)
	})
	switch {
	case err != nil:
		return driver.Lease{}, s.classify("renew", r.verb, l.MachineID, err)
	case r.lost != "":
		return driver.Lease{}, s.lostError("renew", l.MachineID, r.lost)
	}
	return s.lease(l.MachineID, l.Token, secs), nil
}

func (s *Strategy) lostError(op string, id int, why string) error {
	return leasekit.Errorf("k8slease", driver.ErrLost, "%s of machine ID %d in namespace %s: %s", op, id, leasekit.Quote(s.opts.Namespace), why)
}

// Reclaim takes back a lease from its machine ID and token alone, as the
// manager's state file keeps them (lease.Options.StateFile), so that a
// process restarted in a crash loop (a container restarting in its pod)
// keeps its ID instead of taking a new one each time. If the Lease's
// holderIdentity is still l.Token it is renewed for d under a new
// identity (a new token), conditioned on the resourceVersion read: l's
// token then renews, reclaims and releases nothing, so of two processes
// reclaiming one record the second is told [driver.ErrLost].
//
// The returned lease's PrevExpiry bounds the timestamps of every earlier
// holder of the ID: the previous incarnation's below the earlier of the
// evidence and the wall clock at the reclaim (it stopped before this
// reclaim, on this host's clock), and its predecessors' below the bound
// it found when it took the ID over.
// When the update's outcome is unknown, Reclaim returns the lease it may
// have written (MachineID and the new Token) beside [driver.ErrRetry], for
// the caller to release.
func (s *Strategy) Reclaim(ctx context.Context, l driver.Lease, d time.Duration) (driver.Lease, error) {
	secs, err := durationSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	if err := checkLease("reclaim", l); err != nil {
		return driver.Lease{}, err
	}
	identity := s.identity(ctx)
	var floor time.Time
	r, err := s.rewrite(ctx, l.MachineID, l.Token, func(rec *coordv1.Lease, now time.Time) {
		floor = s.reclaim(rec, identity, secs, now)
	})
	if (err == nil && r.lost == "") || (err != nil && r.sent) {
		s.granted.add(l.MachineID, identity)
	}
	switch {
	case err != nil && r.sent:
		return s.lease(l.MachineID, identity, secs), s.classify("reclaim", r.verb, l.MachineID, err)
	case err != nil:
		return driver.Lease{}, s.classify("reclaim", r.verb, l.MachineID, err)
	case r.lost != "":
		return driver.Lease{}, s.lostError("reclaim", l.MachineID, r.lost)
	}
	nl := s.lease(l.MachineID, identity, secs)
	nl.PrevExpiry = floor
	return nl, nil
}

// Release gives l up: if l's Lease still has l.Token as its holderIdentity,
// it clears the holder (the ID is free at once), conditioned on the
// resourceVersion read. The Lease object stays (k8slease never deletes
// one).
//
// The hand-off evidence drops only when this strategy granted l (Acquire,
// Claim or Reclaim): its holder stopped its factories before it released
// (the lease manager does), so the evidence becomes the release time on
// this process's clock if that is earlier. A release of any other lease,
// such as an operator freeing the ID of a holder that is gone (a token
// from [Strategy.List], as once lease free --force does), keeps the
// evidence that holder wrote: nothing else bounds its timestamps, and its
// clock may be ahead of the releasing process's. The next holder's first
// timestamp then waits for that evidence, at most the holder's lease
// duration after its last renewal.
//
// Releasing a lease that is gone, released, or held by someone else does
// nothing and returns nil. An unknown outcome wraps [driver.ErrRetry];
// releasing again is safe.
func (s *Strategy) Release(ctx context.Context, l driver.Lease) error {
	if checkLease("release", l) != nil {
		return nil // not ours to release
	}
	edit := free
	if s.granted.own(l.MachineID, l.Token) {
		edit = release
	}
	r, err := s.rewrite(ctx, l.MachineID, l.Token, edit)
	if err != nil {
		return s.classify("release", r.verb, l.MachineID, err)
	}
	s.granted.forget(l.MachineID, l.Token)
	return nil
}

// Claim leases machine ID id for d if it is free ([driver.Claimer]): no
// Lease (created), released, or seen unchanged by this strategy for its
// recorded duration (taken over). A held ID is [driver.ErrConflict] naming
// it; so is one a contender claims first. When the outcome is unknown,
// Claim returns the claim beside [driver.ErrRetry], for the caller to
// release.
func (s *Strategy) Claim(ctx context.Context, id int, d time.Duration) (driver.Lease, error) {
	if !leasekit.ValidID(id) {
		return driver.Lease{}, leasekit.Errorf("k8slease", driver.ErrConfig, "claim: machine ID %d outside 0..%d", id, Capacity-1)
	}
	if ids := *s.opts.MachineIDs; !ids.Contains(id) {
		return driver.Lease{}, leasekit.Errorf("k8slease", driver.ErrConfig, "claim: machine ID %d outside Options.MachineIDs %v", id, ids)
	}
	secs, err := durationSeconds(d)
	if err != nil {
		return driver.Lease{}, err
	}
	rctx, cancel := s.request(ctx)
	rec, err := s.leases.Get(rctx, s.name(id), metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		rec = nil
	case err != nil:
		return driver.Lease{}, s.classify("claim", "get", id, err)
	default:
		at := time.Now()
		if j := judge(rec, s.seen.note(id, rec, at), at); !j.free {
			return driver.Lease{}, leasekit.Errorf("k8slease", driver.ErrConflict, "claim of machine ID %d in namespace %s: held by %s",
				id, leasekit.Quote(s.opts.Namespace), leasekit.Quote(holderName(holderOf(rec))))
		}
	}
	l, won, err := s.claim(ctx, "claim", id, rec, secs)
	switch {
	case err != nil:
		return l, err
	case !won:
		return driver.Lease{}, leasekit.Errorf("k8slease", driver.ErrConflict, "claim of machine ID %d in namespace %s: a contender claimed it first",
			id, leasekit.Quote(s.opts.Namespace))
	}
	return l, nil
}
