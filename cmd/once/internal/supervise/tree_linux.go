package supervise

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// TreeNote is what the help says of the processes CMD starts on Linux.
const TreeNote = `On Linux the SIGKILL reaches every process CMD started, wherever it
went (another process group or session, a daemon's double fork): CMD
runs under a supervisor process (shown as ` + supervisorName + `),
a child subreaper that adopts them all. When CMD exits, whatever it left
running gets SIGKILL, and the lease is released only once none of it is
left; while one survives SIGKILL (stuck in the kernel) hold keeps
renewing and says so. When hold ends, even by SIGKILL, the supervisor
stops the tree (SIGTERM, SIGKILL after --grace). A stopped hold (SIGSTOP,
Ctrl-Z) or a hung one can neither renew nor stop CMD: the supervisor,
which hold tells the end of the safe window at every renewal, stops the
tree by itself by then, before the lease expires, so no other holder gets
the machine ID while CMD's processes live. Not covered: processes started
for CMD outside its tree (by systemd-run, a container runtime, ssh), and
hold and the supervisor both killed with SIGKILL or both stopped.`

// supervisorSlack is how long after the end of the safe window hold waits
// for a supervisor that has not finished stopping CMD before it kills the
// supervisor and stops CMD's processes itself (a stopped or hung
// supervisor): a small part of the safety margin between the end of the
// safe window and the lease's expiry.
const supervisorSlack = time.Second

// runCmd runs argv under the supervisor and forwards the lease's state to
// it: each new end of the safe window, a loss, hold's signals. It returns
// once the supervisor has exited, so that no process CMD started is left,
// with CMD's exit status.
func runCmd(e IO, w *Watch, m Lease, sigs <-chan os.Signal, cur leaseView, argv []string, grace time.Duration) int {
	// Should the supervisor end before CMD's processes, they come to hold.
	if err := becomeSubreaper(); err != nil {
		e.errorf("cannot supervise CMD: %v", err)
		return exitFail
	}
	r, wr, err := os.Pipe()
	if err != nil {
		e.errorf("starting CMD's supervisor: %v", err)
		return exitFail
	}
	defer wr.Close()
	// /proc/self/exe is this very program, even if its file has been
	// replaced since (an upgrade).
	c := &exec.Cmd{Path: "/proc/self/exe", Args: supervisorArgs(grace, cur.validUntil, cur.machineID, argv)}
	c.Env = append(os.Environ(), MachineIDEnv+"="+strconv.Itoa(cur.machineID))
	c.Stdin, c.Stdout, c.Stderr = e.Stdin, e.Stdout, e.Stderr
	if f := stderrFile(e.Stderr); f != nil {
		c.Stderr = f // the supervisor and CMD write standard error themselves, not through a pipe
	}
	c.ExtraFiles = []*os.File{r}
	// A group of its own: signals for hold's group (a terminal's Ctrl-C,
	// Ctrl-Z) do not reach it.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.WaitDelay = time.Second // output copied from pipes (not a terminal or file)
	err = c.Start()
	r.Close()
	if err != nil {
		e.errorf("starting CMD's supervisor: %v", err)
		return ExitCannotRun
	}
	exited := make(chan struct{})
	go func() {
		c.Wait() // sets c.ProcessState, read after exited
		close(exited)
	}()
	// A write fails (EPIPE) only once the supervisor has ended; its exit
	// is seen next.
	tell := func(format string, args ...any) {
		fmt.Fprintln(wr, strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
	}

	var (
		sent      = cur.validUntil
		stopping  bool
		supKilled bool
		done      = m.Done()
	)
	for {
		v, changed := w.view()
		switch {
		case v.seq == cur.seq && v.active:
			cur.validUntil = v.validUntil
			if !v.validUntil.Equal(sent) {
				sent = v.validUntil
				tell("deadline %d", toMono(sent))
			}
		case !stopping:
			stopping = true
			tell("stop %d lease of machine ID %d lost", syscall.SIGTERM, cur.machineID)
		}
		backstop := newWake(!supKilled, cur.validUntil.Add(supervisorSlack))
		select {
		case <-exited:
			backstop.stop()
			return supervisorStatus(e, c.ProcessState, supKilled)
		case <-changed:
		case s := <-sigs:
			if sig, ok := s.(syscall.Signal); ok {
				tell("stop %d", sig)
			}
		case <-done:
			done = nil // Done stays closed; the view shows the lease disabled
			if !stopping {
				stopping = true
				tell("stop %d lease manager ended (%v)", syscall.SIGTERM, m.Err())
			}
		case <-backstop.c:
			// A supervisor that has exited (a zombie: hold was stopped
			// meanwhile) is seen on exited next. Until hold reaps it, its
			// PID names no other process.
			p, ok := readStat(c.Process.Pid)
			select {
			case <-exited:
				ok = false
			default:
			}
			if ok && p.state != 'Z' && !time.Now().Before(cur.validUntil.Add(supervisorSlack)) {
				e.errorf("CMD's supervisor (PID %d) still running %v after the end of the lease's safe window: SIGKILL to it",
					c.Process.Pid, supervisorSlack)
				c.Process.Kill()
				supKilled = true
			}
		}
		backstop.stop()
	}
}

// supervisorStatus is hold's exit status once the supervisor has exited:
// CMD's, which the supervisor exits with. A supervisor ended by a signal
// has left CMD's processes to hold, which kills them and waits until none
// is left; the status is then the signal's, 128+N.
func supervisorStatus(e IO, ps *os.ProcessState, killed bool) int {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ps.ExitCode()
	}
	if !killed {
		e.errorf("CMD's supervisor ended by %v: stopping CMD's processes (SIGKILL)", ws.Signal())
	}
	killAll(e, nil, "hold releases the lease only once they have ended")
	return 128 + int(ws.Signal())
}
