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

// TestProcessAdvances: busy work moves the process's CPU time forward, and
// it is at least the busy thread's.
func TestProcessAdvances(t *testing.T) {
	p0 := cputime.Process()
	if p0 < 0 {
		if runtime.GOOS == "linux" {
			t.Fatal("Process() = -1 on Linux")
		}
		t.Skip("process CPU time is read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := cputime.Thread()
	x := uint64(1)
	for i := range 20_000_000 {
		x = x*6364136223846793005 + uint64(i)
	}
	t1, p1 := cputime.Thread(), cputime.Process()
	if p1 <= p0 || p1-p0 < t1-t0 || x == 0 {
		t.Fatalf("process CPU time %d then %d; the busy thread used %d", p0, p1, t1-t0)
	}
}
