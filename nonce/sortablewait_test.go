package nonce

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestSortableCapUnderSynctest: a 64-bit sortable nonce waiting for the
// next millisecond after the cap ends up sleeping, so that a synctest
// bubble's clock (which moves only when every goroutine sleeps) advances.
// A generator that only yielded would never return.
func TestSortableCapUnderSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		f := mustNew(t, Config{Fixed: true, MachineID: 1, Epoch: start.Add(-time.Hour)})
		var s uint64
		for range 3*8192 + 1 {
			var err error
			if s, err = f.Sortable64(); err != nil {
				t.Fatal(err)
			}
		}
		h := uint64(time.Hour / time.Millisecond)
		if ts64(s) != h+3 || count64(s) != 0 {
			t.Fatalf("sortable ts %d count %d; want ts %d count 0", ts64(s), count64(s), h+3)
		}
		if el := time.Since(start); el != 3*time.Millisecond {
			t.Fatalf("fake time advanced %v, want 3ms", el)
		}
	})
}
