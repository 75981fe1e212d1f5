package k8slease

import (
	"context"
	"strconv"
	"strings"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// Names of the metadata k8slease writes on each Lease.
const (
	// AnnotationTimestampsBefore is the hand-off evidence: every timestamp
	// that any holder of this machine ID, the current one included, may
	// have emitted is below it. Each write raises it to the writer's clock
	// when it sent the write plus the duration; the holder's own release
	// lowers it to the release time, never below
	// AnnotationPredecessorsBefore; a release by anyone else keeps it.
	// RFC 3339 with nanoseconds, UTC.
	AnnotationTimestampsBefore = "once-go.github.io/timestamps-before"
	// AnnotationPredecessorsBefore bounds the timestamps of the holders
	// before the current one: the evidence the current holder found when
	// it took the ID over (or reclaimed it). Its own factories start above
	// it, so a release cannot bring the evidence below it.
	AnnotationPredecessorsBefore = "once-go.github.io/predecessors-before"
	// LabelPool carries the prefix; List selects the Leases by it.
	LabelPool = "once-go.github.io/pool"
	// labelManagedBy is the conventional label naming the writer.
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "once"
)

// name is the Lease name of machine ID id.
func (s *Strategy) name(id int) string { return s.opts.Prefix + "-" + strconv.Itoa(id) }

// idOf parses a Lease name of this prefix; ok is false for any other name.
func (s *Strategy) idOf(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, s.opts.Prefix+"-")
	if !ok {
		return 0, false
	}
	return leasekit.ParseID(rest)
}

// identity is the holderIdentity of a new holding: the holder, with the
// key fingerprint ctx carries before it (leasekit.WithKey), and a fresh
// random token. It is also the lease's Token: Renew, Reclaim and Release
// match it exactly.
func (s *Strategy) identity(ctx context.Context) string {
	return leasekit.WithKey(s.opts.Holder, driver.KeyFingerprint(ctx)) + "/" + leasekit.NewTokenString()
}

// holderOf returns rec's holderIdentity, "" when released (cleared).
func holderOf(rec *coordv1.Lease) string {
	if rec.Spec.HolderIdentity == nil {
		return ""
	}
	return *rec.Spec.HolderIdentity
}

// holderName strips the token from a holderIdentity k8slease wrote; another
// writer's identity is returned whole.
func holderName(identity string) string {
	i := strings.LastIndexByte(identity, '/')
	if i >= 0 && len(identity)-i-1 == tokenLen {
		return identity[:i]
	}
	return identity
}

// tokenLen is the length of leasekit.NewTokenString's tokens.
const tokenLen = 22

// durationOf is rec's recorded leaseDurationSeconds; ok is false when it
// is missing or not positive.
func durationOf(rec *coordv1.Lease) (time.Duration, bool) {
	if rec.Spec.LeaseDurationSeconds == nil || *rec.Spec.LeaseDurationSeconds <= 0 {
		return 0, false
	}
	return time.Duration(*rec.Spec.LeaseDurationSeconds) * time.Second, true
}

// annotationTime reads a time annotation of rec, zero when missing or
// unreadable.
func annotationTime(rec *coordv1.Lease, key string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, rec.Annotations[key])
	if err != nil {
		return time.Time{}
	}
	return t
}

// evidence is what rec says about the timestamps of all its holders so
// far: the later of its two annotations; zero when it has neither
// (another writer).
func evidence(rec *coordv1.Lease) time.Time {
	return later(annotationTime(rec, AnnotationTimestampsBefore), annotationTime(rec, AnnotationPredecessorsBefore))
}

// predecessors is rec's AnnotationPredecessorsBefore, zero when missing.
func predecessors(rec *coordv1.Lease) time.Time {
	return annotationTime(rec, AnnotationPredecessorsBefore)
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// setTime records a time annotation on rec; a zero t removes it.
func setTime(rec *coordv1.Lease, key string, t time.Time) {
	if t.IsZero() {
		delete(rec.Annotations, key)
		return
	}
	if rec.Annotations == nil {
		rec.Annotations = map[string]string{}
	}
	rec.Annotations[key] = t.UTC().Format(time.RFC3339Nano)
}

// newRecord is the Lease that claims the missing machine ID id for holder
// identity, written at wall time now for secs seconds.
func (s *Strategy) newRecord(id int, identity string, secs int32, now time.Time) *coordv1.Lease {
	rec := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.name(id), Namespace: s.opts.Namespace}}
	s.hold(rec, identity, secs, now)
	rec.Spec.AcquireTime = micro(now)
	rec.Spec.LeaseTransitions = ptr(int32(0))
	return rec
}

// takeOver turns rec (released or expired) into a claim by identity:
// the evidence found becomes the predecessors' bound, acquireTime now,
// leaseTransitions one more.
func (s *Strategy) takeOver(rec *coordv1.Lease, identity string, secs int32, now time.Time) {
	setTime(rec, AnnotationPredecessorsBefore, evidence(rec))
	s.hold(rec, identity, secs, now)
	rec.Spec.AcquireTime = micro(now)
	n := int32(0)
	if rec.Spec.LeaseTransitions != nil {
		n = *rec.Spec.LeaseTransitions
	}
	rec.Spec.LeaseTransitions = ptr(n + 1)
}

// reclaim turns rec into the holding of a restarted incarnation of its
// holder: the previous incarnation stopped before now (on this host's
// clock) and below the evidence, so the earlier of the two joins the
// predecessors' bound; then it holds rec as a renewal does. It returns
// the new predecessors' bound, the reclaimed lease's PrevExpiry.
func (s *Strategy) reclaim(rec *coordv1.Lease, identity string, secs int32, now time.Time) time.Time {
	prev := now
	if b := evidence(rec); !b.IsZero() && b.Before(now) {
		prev = b
	}
	floor := later(predecessors(rec), prev)
	setTime(rec, AnnotationPredecessorsBefore, floor)
	s.hold(rec, identity, secs, now)
	return floor
}

// hold writes what every claim and renewal writes: the holder, the
// duration, renewTime now, the pool labels, and the evidence raised to
// now + duration (now is the wall clock before the request is sent, so the
// holder's factories, which stop a margin before the duration runs out
// counted from an earlier moment, stay below it). The evidence never
// drops here: a holder whose clock is behind its predecessors' still
// starts above them.
func (s *Strategy) hold(rec *coordv1.Lease, identity string, secs int32, now time.Time) {
	rec.Spec.HolderIdentity = ptr(identity)
	rec.Spec.LeaseDurationSeconds = ptr(secs)
	rec.Spec.RenewTime = micro(now)
	if rec.Labels == nil {
		rec.Labels = map[string]string{}
	}
	rec.Labels[LabelPool] = s.opts.Prefix
	rec.Labels[labelManagedBy] = managedBy
	setTime(rec, AnnotationTimestampsBefore, later(evidence(rec), now.Add(time.Duration(secs)*time.Second)))
}

// release clears rec's holder at wall time now, for the holder itself
// (this strategy granted the lease). The holder stopped its
// factories before it released, so its own timestamps are below now as
// well as below the evidence; its predecessors' are below their bound: the
// evidence becomes the later of that bound and the earlier of the other
// two.
func release(rec *coordv1.Lease, now time.Time) {
	rec.Spec.HolderIdentity = nil
	rec.Spec.RenewTime = micro(now)
	own := now
	if b := annotationTime(rec, AnnotationTimestampsBefore); !b.IsZero() && b.Before(now) {
		own = b
	}
	setTime(rec, AnnotationTimestampsBefore, later(predecessors(rec), own))
}

// free clears rec's holder at wall time now for a process other than the
// holder (an operator freeing the ID of a holder that is gone). Nothing
// bounds that holder's timestamps but the evidence it wrote, in its own
// clock, so the evidence stays.
func free(rec *coordv1.Lease, now time.Time) {
	rec.Spec.HolderIdentity = nil
	rec.Spec.RenewTime = micro(now)
	setTime(rec, AnnotationTimestampsBefore, evidence(rec))
}

func micro(t time.Time) *metav1.MicroTime {
	m := metav1.NewMicroTime(t)
	return &m
}

func ptr[T any](v T) *T { return &v }
