package soakrun

import (
	"fmt"
	"os"
	"testing"
)

// TestTargetPrefersHolders: with -ids, a worker fault goes to the first
// slot from the drawn one that holds a machine ID and is under no other
// fault; without a free holder, to the first slot under no fault; without
// -ids, to the drawn slot.
func TestTargetPrefersHolders(t *testing.T) {
	r := &runner{cfg: Config{Out: t.TempDir(), IDs: 2}}
	if err := os.MkdirAll(r.cfg.Out+"/state", 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		r.slots = append(r.slots, &slot{r: r, name: fmt.Sprintf("w%d", i+1), idx: i})
	}
	for _, w := range []int{2, 3} { // w3 and w4 hold IDs
		if err := os.WriteFile(r.slots[w].holding(), []byte("0"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := r.target(0)
	b := r.target(0)
	c := r.target(0)
	if a.name != "w3" || b.name != "w4" || c.name != "w1" {
		t.Fatalf("faults drawn for w1 went to %s, %s, %s; want w3, w4 (the holders), then w1", a.name, b.name, c.name)
	}
	r.untarget(a)
	if d := r.target(3); d.name != "w3" {
		t.Errorf("a fault drawn for w4 (under a fault) went to %s, want w3 (a holder again free)", d.name)
	}
	r.cfg.IDs = 0
	if e := r.target(1); e.name != "w2" {
		t.Errorf("without -ids a fault drawn for w2 went to %s", e.name)
	}
}
