package leasetest

import (
	"context"
	"errors"
	"testing"

	"github.com/once-go/once/lease/driver"
)

// checkReclaim checks the [driver.Reclaimer] contract: a reclaim from the
// machine ID and token alone extends the lease and replaces the token, so
// that the old token renews, releases and reclaims nothing, and of two
// reclaims of one record (a copied state file) exactly one wins.
func (s *suite) checkReclaim(t *testing.T) {
	newContender := s.h.New(t)
	st := newContender()
	r, ok := st.(driver.Reclaimer)
	if !ok {
		t.Skipf("%s does not implement driver.Reclaimer", st.Name())
	}
	g := mustAcquire(t, st, longTTL)
	record := driver.Lease{MachineID: g.MachineID, Token: g.Token}

	// A restarted process and a copy of its state file reclaim one record.
	other := newContender().(driver.Reclaimer)
	first, err := r.Reclaim(context.Background(), record, longTTL)
	if err != nil {
		t.Fatalf("Reclaim of a held lease: %v", err)
	}
	if first.MachineID != g.MachineID {
		t.Fatalf("Reclaim of machine ID %d returned machine ID %d", g.MachineID, first.MachineID)
	}
	if first.Token == "" || first.Token == g.Token {
		t.Fatalf("Reclaim kept the token: a copy of the state file could hold the lease too")
	}
	s.checkTTL(t, "Reclaim", granted{Lease: first}, longTTL)
	if _, err := other.Reclaim(context.Background(), record, longTTL); !errors.Is(err, driver.ErrLost) {
		t.Errorf("second Reclaim of the same record: %v, want driver.ErrLost", err)
	}
	if _, err := callRenew(t, context.Background(), st, g.Lease, longTTL); !errors.Is(err, driver.ErrLost) {
		t.Errorf("Renew with the token replaced by Reclaim: %v, want driver.ErrLost", err)
	}
	if err := callRelease(t, context.Background(), st, g.Lease); err != nil && !transient(err) {
		t.Errorf("Release with the replaced token: %v", err)
	}
	if _, err := callRenew(t, context.Background(), st, first, longTTL); err != nil {
		t.Errorf("the reclaimed lease was changed by a Release with its old token: Renew: %v", err)
	}
	if err := callRelease(t, context.Background(), st, first); err != nil {
		t.Errorf("Release of the reclaimed lease: %v", err)
	}
}
