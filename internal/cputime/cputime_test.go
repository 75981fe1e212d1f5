package cputime_test

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

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

// TestOf: a child process's CPU clock reads, and advances while it spins;
// a process that does not exist reads -1.
func TestOf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("another process's CPU time is read on Linux only")
	}
	if got := cputime.Of(0); got != -1 {
		t.Errorf("Of(0) = %d, want -1", got)
	}
	if got := cputime.Of(os.Getpid()); got <= 0 {
		t.Fatalf("Of(own pid) = %d, want > 0", got)
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 5")
	if err := cmd.Start(); err != nil {
		t.Skip("no sh to spin:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	c0 := cputime.Of(cmd.Process.Pid)
	if c0 < 0 {
		t.Fatalf("Of(child) = %d", c0)
	}
	deadline := time.Now().Add(10 * time.Second)
	for cputime.Of(cmd.Process.Pid) <= c0 {
		if time.Now().After(deadline) {
			t.Fatalf("child's CPU time stayed at %d ns while it spun", c0)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if got := cputime.Of(cmd.Process.Pid); got != -1 {
		t.Errorf("Of(reaped child) = %d, want -1", got)
	}
}
