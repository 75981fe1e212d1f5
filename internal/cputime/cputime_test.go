package cputime_test

import (
	"runtime"
	"testing"

	"github.com/once-go/once/internal/cputime"
)

// TestThreadAdvances: busy work on a locked thread moves its CPU time
// forward (Linux; elsewhere Thread reports -1).
func TestThreadAdvances(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := cputime.Thread()
	if t0 < 0 {
		if runtime.GOOS == "linux" {
			t.Fatal("Thread() = -1 on Linux")
		}
		t.Skip("thread CPU time is read on Linux only")
	}
	x := uint64(1)
	for i := range 20_000_000 {
		x = x*6364136223846793005 + uint64(i)
	}
	if t1 := cputime.Thread(); t1 <= t0 || x == 0 {
		t.Fatalf("thread CPU time %d then %d after busy work", t0, t1)
	}
}
