//go:build !linux

package supervise

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

	"github.com/once-go/once/cmd/once/internal/msg"
)

// TreeNote is what the help says of the processes CMD starts on this
// platform.
const TreeNote = `On Linux only (not on ` + runtime.GOOS + `) the processes CMD starts outside
its process group are stopped too, and CMD is stopped when hold is killed
or stopped. Here hold stops CMD's process group, and nothing else: a
process CMD starts in another group or session (a daemon) keeps running
after CMD exits and the lease is released, and CMD keeps running when
hold is killed with SIGKILL, or stopped (SIGSTOP, Ctrl-Z) past the
lease's end; hold says so on standard error when it starts CMD.`

// runCmd runs argv in a process group of its own, with the machine ID in
// its environment, and stops it (SIGTERM to its process group, SIGKILL
// after grace, and in any case at the end of the safe window) when the
// lease is lost, when the safe window is about to end without a renewal,
// or when hold is signalled (the signal is passed on). It returns CMD's
// exit status.
func runCmd(e IO, w *Watch, m Lease, sigs <-chan os.Signal, cur leaseView, argv []string, grace time.Duration) int {
	e.errorf("warning: on %s only CMD's process group is stopped: processes CMD starts in another group or session, and CMD itself if hold is killed or stopped, outlive the lease (see --help)", runtime.GOOS)
	// Parent-death signals follow the thread that starts the child: keep
	// this goroutine on it until CMD has exited.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := groupCmd(argv)
	c.Env = append(os.Environ(), MachineIDEnv+"="+strconv.Itoa(cur.machineID))
	c.Stdin, c.Stdout, c.Stderr = e.Stdin, e.Stdout, e.Stderr
	if f := stderrFile(e.Stderr); f != nil {
		c.Stderr = f // CMD writes its standard error itself, not through a pipe
	}
	c.WaitDelay = time.Second // output copied from pipes (not a terminal or file) that CMD's leftovers keep open
	if err := c.Start(); err != nil {
		e.errorf("running %s: %v", msg.Quote(argv[0]), err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return ExitNotFound
		}
		return ExitCannotRun
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
			e.errorf("sending %s to CMD: %v", sigName(s), err)
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
				e.errorf("%s: stopping CMD (%s now, SIGKILL in %v)", why, sigName(s), time.Until(killAt).Round(time.Millisecond))
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
				e.errorf("CMD still running: SIGKILL")
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
