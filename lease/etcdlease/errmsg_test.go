package etcdlease_test

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestErrorsNameTheMachineID: an error of an operation on one machine ID
// names it, ID 0 included; an operation on no ID (Check) names none.
func TestErrorsNameTheMachineID(t *testing.T) {
	real := client(t)
	prefix := namespace(t, real)
	held, err := strategy(t, real, prefix, true).Acquire(ctxT(t), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if held.MachineID != 0 {
		t.Fatalf("lowest-first Acquire on an empty prefix took ID %d, want 0", held.MachineID)
	}
	fc := newClient(t, real.Endpoints()...)
	on := func() error { return status.Error(codes.Unavailable, "connection refused") }
	fc.KV = faultKV{KV: fc.KV, err: on}
	fc.Lease = faultLease{Lease: fc.Lease, err: on}
	s := strategy(t, fc, prefix, true)
	ctx := ctxT(t)
	if _, err := s.Renew(ctx, held, time.Minute); err == nil || !strings.Contains(err.Error(), "renew of machine ID 0 under") {
		t.Errorf("Renew of ID 0: %v, want it to name machine ID 0", err)
	}
	if err := s.Check(ctx); err == nil || strings.Contains(err.Error(), "machine ID") || !strings.Contains(err.Error(), "check under") {
		t.Errorf("Check: %v, want no machine ID named", err)
	}
}
