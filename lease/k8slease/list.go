package k8slease

import (
	"context"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/internal/leasekit"
)

// view is the pool as one List showed it, judged by this strategy's
// sightings.
type view struct {
	recs    [Capacity]*coordv1.Lease
	judged  [Capacity]judgement
	free    []int         // ascending, within Options.MachineIDs: no Lease, released, or expired
	soonest time.Duration // time until the first held ID in Options.MachineIDs expires by observation; -1 none
}

// survey lists the pool's Leases (label once-go.github.io/pool=<prefix>,
// names "<prefix>-<id>"), notes their versions, and judges each ID; from
// the API server's watch cache (resourceVersion "0") when cached is set,
// else with a consistent read. Errors are the client's, unclassified.
//
// A stale view is safe: a version read is one that existed before the
// reply, whenever it was written, so timing it from the reply errs late;
// and every claim names the version it read.
func (s *Strategy) survey(ctx context.Context, cached bool) (*view, error) {
	rctx, cancel := s.request(ctx)
	defer cancel()
	o := metav1.ListOptions{LabelSelector: LabelPool + "=" + s.opts.Prefix}
	if cached {
		o.ResourceVersion = "0"
	}
	list, err := s.leases.List(rctx, o)
	if err != nil {
		return nil, err
	}
	at := time.Now() // after the reply: later than any write it shows
	v := &view{soonest: -1}
	var present [Capacity]bool
	for i := range list.Items {
		rec := &list.Items[i]
		if id, ok := s.idOf(rec.Name); ok {
			v.recs[id], present[id] = rec, true
		}
	}
	s.seen.keep(&present)
	for id, rec := range v.recs {
		if rec == nil {
			v.judged[id] = judgement{free: true}
		} else {
			v.judged[id] = judge(rec, s.seen.note(id, rec, at), at)
		}
		j := v.judged[id]
		switch {
		case !s.opts.MachineIDs.Contains(id):
			// outside Options.MachineIDs: never a candidate
		case j.free:
			v.free = append(v.free, id)
		case j.left >= 0 && (v.soonest < 0 || j.left < v.soonest):
			v.soonest = j.left
		}
	}
	return v, nil
}

// List returns the held machine IDs in ascending order ([driver.Lister]):
// every Lease with a holder that this strategy has not seen unchanged for
// its recorded duration, read from the API server's watch cache (at most
// a few milliseconds behind). Slot.TTL is the time left by that observation,
// counted from when this strategy first saw the record's current version:
// a process that has only just looked cannot tell a dead holder from a
// live one, and reports the whole duration (0 when the record has no
// valid duration). Slot.Holder is the holderIdentity without its token
// and key fingerprint, Slot.Fingerprint that fingerprint ("" when none);
// Slot.Token the whole holderIdentity, which Release matches.
func (s *Strategy) List(ctx context.Context) ([]driver.Slot, error) {
	v, err := s.survey(ctx, true)
	if err != nil {
		return nil, s.classify("list", "list", -1, err)
	}
	var slots []driver.Slot
	for id, rec := range v.recs {
		if rec == nil || v.judged[id].free {
			continue
		}
		identity := holderOf(rec)
		holder, fp := leasekit.SplitKey(holderName(identity))
		slots = append(slots, driver.Slot{MachineID: id, TTL: max(v.judged[id].left, 0), Holder: holder, Fingerprint: fp, Token: identity})
	}
	return slots, nil
}
