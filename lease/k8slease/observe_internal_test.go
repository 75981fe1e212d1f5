package k8slease

import (
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func record(version, holder string, secs int32) *coordv1.Lease {
	r := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{ResourceVersion: version}}
	if holder != "" {
		r.Spec.HolderIdentity = &holder
	}
	if secs != 0 {
		r.Spec.LeaseDurationSeconds = &secs
	}
	return r
}

// TestJudge: a record is expired only once its version has stayed the same
// for its own recorded duration since first read; a new version restarts
// the count; a released record is free at once; a record without a valid
// duration never expires.
func TestJudge(t *testing.T) {
	var s sightings
	t0 := time.Now()
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	r1 := record("1", "a/tok", 10)
	if first := s.note(7, r1, at(0)); !first.Equal(at(0)) {
		t.Fatalf("first sighting at %v", first.Sub(t0))
	}
	if first := s.note(7, r1, at(4*time.Second)); !first.Equal(at(0)) {
		t.Errorf("same version seen again: first %v, want 0", first.Sub(t0))
	}
	if j := judge(r1, at(0), at(9*time.Second)); j.free || j.left != time.Second {
		t.Errorf("9s of 10: %+v", j)
	}
	if j := judge(r1, at(0), at(10*time.Second)); !j.free {
		t.Errorf("10s of 10: %+v, want free", j)
	}
	r2 := record("2", "a/tok", 10) // renewed
	if first := s.note(7, r2, at(9*time.Second)); !first.Equal(at(9 * time.Second)) {
		t.Errorf("new version: first %v, want 9s", first.Sub(t0))
	}
	if j := judge(r2, at(9*time.Second), at(15*time.Second)); j.free || j.left != 4*time.Second {
		t.Errorf("renewed record 6s after: %+v", j)
	}
	if j := judge(record("3", "", 10), at(0), at(0)); !j.free {
		t.Errorf("released: %+v", j)
	}
	for _, secs := range []int32{0, -5} {
		if j := judge(record("4", "x", secs), at(0), at(1000*time.Hour)); j.free || j.left != -1 {
			t.Errorf("duration %d: %+v, want held for ever", secs, j)
		}
	}
	zero := record("5", "x", 0)
	zero.Spec.LeaseDurationSeconds = ptr(int32(0)) // recorded, and 0
	if j := judge(zero, at(0), at(1000*time.Hour)); j.free || j.left != -1 {
		t.Errorf("recorded duration 0: %+v, want held for ever", j)
	}
	var present [Capacity]bool
	s.keep(&present)
	if len(s.m) != 0 {
		t.Errorf("keep left %d sightings of deleted Leases", len(s.m))
	}
}

func TestHolderName(t *testing.T) {
	for in, want := range map[string]string{
		"web-0/1/" + "AAAAAAAAAAAAAAAAAAAAAA": "web-0/1",
		"node-a":                              "node-a",
		"x/short":                             "x/short",
		"/" + "AAAAAAAAAAAAAAAAAAAAAA":        "",
	} {
		if got := holderName(in); got != want {
			t.Errorf("holderName(%q) = %q, want %q", in, got, want)
		}
	}
}
