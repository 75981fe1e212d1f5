package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/once-go/once/lease"
)

// defaultGrace is the default of --grace.
const defaultGrace = 5 * time.Second

// Exit statuses of lease hold -- CMD when CMD cannot be run, as a shell's.
const (
	exitCannotRun = 126 // CMD was found but could not be started
	exitNotFound  = 127 // CMD was not found
)

// machineIDEnv is the variable that carries the machine ID to CMD.
const machineIDEnv = "ONCE_MACHINE_ID"

// awaitUsable waits until w shows a lease whose machine ID may be used now
// (in force, past its hand-off wait, inside its safe window) and returns
// it. It returns ok = false if a signal arrives first (sig) or the manager
// ends for good.
func awaitUsable(w *leaseWatch, m *lease.Manager, sigs <-chan os.Signal) (v leaseView, sig os.Signal, ok bool) {
	for {
		v, changed := w.view()
		now := time.Now()
		if v.usable(now) {
			return v, nil, true
		}
		wake := newWake(v.active && now.Before(v.validUntil), now.Add(v.readyIn(now)))
		select {
		case <-changed:
		case <-wake.c:
		case s := <-sigs:
			wake.stop()
			return v, s, false
		case <-m.Done():
			wake.stop()
			return v, nil, false
		}
		wake.stop()
	}
}

// holdExec runs CMD (argv) on the lease: it waits until a value with the
// machine ID may be emitted, starts CMD with the ID in ONCE_MACHINE_ID,
// and stops it (SIGTERM to its process group, SIGKILL after grace, and in
// any case at the end of the safe window) when the lease is lost, when the
// safe window is about to end without a renewal, or when hold is
// signalled (the signal is passed on). It returns CMD's exit status.
func holdExec(e *env, who string, w *leaseWatch, m *lease.Manager, sigs <-chan os.Signal, argv []string, grace time.Duration) int {
	cur, sig, ok := awaitUsable(w, m, sigs)
	switch {
	case sig != nil:
		errorf(e, who, "%s before CMD started", sigName(sig))
		return exitFail
	case !ok:
		errorf(e, who, "no lease held: %v", m.Err())
		return exitFail
	}
	if left := time.Until(cur.validUntil); left <= grace {
		errorf(e, who, "machine ID %d: %v left of the lease's safe window, not more than --grace %v: CMD would have no time to stop; lower --grace", cur.machineID, left.Round(time.Millisecond), grace)
		return exitFail
	}

	// Parent-death signals follow the thread that starts the child: keep
	// this goroutine on it until CMD has exited.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := groupCmd(argv)
	c.Env = append(os.Environ(), machineIDEnv+"="+strconv.Itoa(cur.machineID))
	c.Stdin, c.Stdout, c.Stderr = e.stdin, e.stdout, e.stderr
	if l, ok := e.stderr.(*lockedWriter); ok {
		if f, ok := l.w.(*os.File); ok {
			c.Stderr = f // CMD writes its standard error itself, not through a pipe
		}
	}
	c.WaitDelay = time.Second // output copied from pipes (not a terminal or file) that CMD's leftovers keep open
	if err := c.Start(); err != nil {
		errorf(e, who, "running %s: %v", quoteValue(argv[0]), err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return exitNotFound
		}
		return exitCannotRun
	}
	exited := make(chan struct{})
	go func() {
		c.Wait() // sets c.ProcessState, read after exited
		close(exited)
	}()

	var (
		stopping bool      // CMD has been asked to stop
		killAt   time.Time // when it gets SIGKILL, once stopping
		killed   bool
		done     = m.Done()
	)
	send := func(s os.Signal) {
		if err := signalGroup(c, s); err != nil {
			errorf(e, who, "sending %s to CMD: %v", sigName(s), err)
		}
	}
	stop := func(s os.Signal, why string) {
		if !stopping {
			stopping = true
			killAt = time.Now().Add(grace)
			if cur.validUntil.Before(killAt) {
				killAt = cur.validUntil
			}
			if why != "" {
				errorf(e, who, "%s: stopping CMD (%s now, SIGKILL in %v)", why, sigName(s), time.Until(killAt).Round(time.Millisecond))
			}
		}
		send(s)
	}
	for {
		v, changed := w.view()
		now := time.Now()
		sameLease := v.seq == cur.seq && v.active
		if sameLease {
			cur.validUntil = v.validUntil
		}
		switch {
		case stopping:
		case !sameLease:
			stop(syscall.SIGTERM, fmt.Sprintf("lease of machine ID %d lost", cur.machineID))
		case !now.Before(cur.validUntil.Add(-grace)):
			stop(syscall.SIGTERM, fmt.Sprintf("lease of machine ID %d not renewed, %v left of its safe window",
				cur.machineID, cur.validUntil.Sub(now).Round(time.Millisecond)))
		}
		var next time.Time
		switch {
		case !stopping:
			next = cur.validUntil.Add(-grace)
		case !killed:
			next = killAt
		}
		wake := newWake(!next.IsZero(), next)
		select {
		case <-exited:
			wake.stop()
			// Whatever CMD left running in its group must not outlive the
			// lease.
			send(syscall.SIGKILL)
			return exitStatus(c.ProcessState)
		case <-changed:
		case <-wake.c:
			if stopping && !killed && !time.Now().Before(killAt) {
				errorf(e, who, "CMD still running: SIGKILL")
				send(syscall.SIGKILL)
				killed = true
			}
		case s := <-sigs:
			stop(s, "")
		case <-done:
			done = nil // Done stays closed; the view shows the lease disabled
			if !stopping {
				stop(syscall.SIGTERM, fmt.Sprintf("lease manager ended (%v)", m.Err()))
			}
		}
		wake.stop()
	}
}

// sigName names the signals hold sends and passes on as kill(1) does.
func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return s.String()
}

// wake is an optional timer: c is nil (never ready) when it is off.
type wake struct {
	t *time.Timer
	c <-chan time.Time
}

// newWake returns a timer firing at at, or an off one unless on.
func newWake(on bool, at time.Time) wake {
	if !on {
		return wake{}
	}
	t := time.NewTimer(time.Until(at))
	return wake{t, t.C}
}

func (w wake) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}
