package supervise

import (
	"os"
	"syscall"
	"time"
)

// awaitUsable waits until w shows a lease whose machine ID may be used now
// (in force, past its hand-off wait, inside its safe window) and returns
// it. It returns ok = false if a signal arrives first (sig) or the manager
// ends for good.
func awaitUsable(w *Watch, m Lease, sigs <-chan os.Signal) (v leaseView, sig os.Signal, ok bool) {
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

// Exec runs CMD (argv) on the lease: it waits until a value with the
// machine ID may be emitted, then runs CMD with the ID in ONCE_MACHINE_ID
// (runCmd: under a supervisor of its process tree on Linux, in a process
// group elsewhere), which stops it when the lease is lost, when the safe
// window is about to end without a renewal, or when hold is signalled. It
// returns CMD's exit status.
func Exec(e IO, w *Watch, m Lease, sigs <-chan os.Signal, argv []string, grace time.Duration) int {
	cur, sig, ok := awaitUsable(w, m, sigs)
	switch {
	case sig != nil:
		e.errorf("%s before CMD started", sigName(sig))
		return exitFail
	case !ok:
		e.errorf("no lease held: %v", m.Err())
		return exitFail
	}
	if left := time.Until(cur.validUntil); left <= grace {
		e.errorf("machine ID %d: %v left of the lease's safe window, not more than --grace %v: CMD would have no time to stop; lower --grace", cur.machineID, left.Round(time.Millisecond), grace)
		return exitFail
	}
	return runCmd(e, w, m, sigs, cur, argv, grace)
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
