package leasetest

import (
	"context"
	"testing"
	"time"

	"github.com/once-go/once/lease/driver"
)

// abortedAcquires is how many Acquires checkAbortedAcquires cuts off.
const abortedAcquires = 60

// checkAbortedAcquires checks the rule for calls whose outcome is unknown:
// an Acquire cut off by its context at any point returns every claim it
// may have left behind (MachineID and Token beside the error), so that the
// caller can release it. Acquires with deadlines spread over the time a
// whole Acquire takes are cut off; every claim they report (or grant) is
// released; then the whole namespace must be free again: a claim applied
// but not reported would hold its ID until it expires, and the fill of the
// namespace would come up short.
func (s *suite) checkAbortedAcquires(t *testing.T) {
	contender := s.h.New(t)
	st := contender()
	t0 := time.Now()
	first := mustAcquire(t, st, longTTL)
	took := max(time.Since(t0), time.Millisecond)
	hold := max(first.ReleaseHold, 0)
	left := []driver.Lease{first.Lease}
	failed, claims := 0, 0
	for i := range abortedAcquires {
		ctx, cancel := context.WithTimeout(t.Context(), took*time.Duration(i%20)/10)
		g, err := callAcquire(t, ctx, st, longTTL)
		cancel()
		if err != nil {
			failed++
			if g.Token != "" {
				claims++
			}
		}
		if err == nil || g.Token != "" {
			left = append(left, g.Lease)
		}
	}
	t.Logf("%d of %d Acquires cut off; %d of those reported a claim whose outcome was unknown", failed, abortedAcquires, claims)
	for _, l := range left {
		for try := 0; ; try++ {
			err := callRelease(t, t.Context(), st, l)
			if err == nil {
				break
			}
			if !transient(err) || try == 20 {
				t.Fatalf("Release of machine ID %d, left by an aborted Acquire: %v", l.MachineID, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(hold + s.h.ClockTick)
	s.fill(t, contender, contender())
}
