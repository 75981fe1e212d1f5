package supervise

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// The process tree of "lease hold -- CMD" on Linux. hold and the
// supervisor between it and CMD are child subreapers: a process whose
// parent ends is adopted by the nearest of them above it, never by a
// process outside the tree. So every process CMD starts, even one that
// leaves its process group or session (a daemon's double fork and
// setsid), stays a descendant of the supervisor while the supervisor
// lives, and of hold after that; and a subreaper that has no child left
// has no descendant left.

// prSetChildSubreaper is prctl(2)'s PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// errProcfs: the descendants of a process are found in /proc.
var errProcfs = errors.New("/proc is not mounted, or shows another PID namespace than this process's: " +
	"the processes CMD starts could not be found and stopped; mount /proc (proc filesystem of this PID namespace)")

// becomeSubreaper makes the calling process a child subreaper, after
// checking that /proc lists this process's PID namespace.
func becomeSubreaper() error {
	if s, err := os.Readlink("/proc/self"); err != nil || s != strconv.Itoa(os.Getpid()) {
		return errProcfs
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}

// clockMonotonic is CLOCK_MONOTONIC: one clock for every process of the
// machine, unlike the monotonic reading of a time.Time, which only means
// something inside the process that took it.
const clockMonotonic = 1

func monoNow() int64 {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic("clock_gettime(CLOCK_MONOTONIC): " + errno.Error())
	}
	return ts.Nano()
}

// toMono converts t to a CLOCK_MONOTONIC reading for another process. The
// clock is read before the time left until t, so that a pause between
// the two makes the result earlier, never later.
func toMono(t time.Time) int64 {
	m := monoNow()
	return m + int64(time.Until(t))
}

// fromMono converts a CLOCK_MONOTONIC reading to a time.Time of this
// process; time.Now is read first, so a pause makes the result earlier.
func fromMono(ns int64) time.Time {
	now := time.Now()
	return now.Add(time.Duration(ns - monoNow()))
}

// procEntry is a process as /proc/PID/stat shows it.
type procEntry struct {
	pid, ppid int
	state     byte   // R, S, D, Z, T, ...
	start     uint64 // starttime: with pid, names one process for good
}

// readStat reads /proc/PID/stat; ok is false once the process has been
// reaped.
func readStat(pid int) (p procEntry, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return p, false
	}
	// The command name, in parentheses, may hold anything but ends at the
	// last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return p, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return p, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return p, false
	}
	return procEntry{pid: pid, ppid: ppid, state: f[0][0], start: start}, true
}

// descendants lists the processes below root in the process tree, as
// /proc shows it now.
func descendants(root int) []procEntry {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	children := map[int][]procEntry{}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	var out []procEntry
	next := []int{root}
	for len(next) > 0 {
		pid := next[0]
		next = next[1:]
		for _, c := range children[pid] {
			out = append(out, c)
			next = append(next, c.pid)
		}
	}
	return out
}

// killTree sends SIGKILL to every process below root and returns the PIDs
// of those that had not ended (zombies have) and the first error a signal
// met (EPERM: a set-user-ID program CMD ran, when hold is not root). A
// process is signalled through a pidfd opened before its start time is
// checked again, so a PID that was reaped and reused meanwhile (by a
// process outside the tree) is never signalled. (Without pidfds, before
// Linux 5.3, the check and the signal are two steps.)
func killTree(root int) (running []int, err error) {
	for _, p := range descendants(root) {
		if p.state == 'Z' {
			continue
		}
		running = append(running, p.pid)
		h, ferr := os.FindProcess(p.pid)
		if ferr != nil {
			continue
		}
		if now, ok := readStat(p.pid); ok && now.start == p.start {
			if serr := h.Signal(syscall.SIGKILL); serr != nil && !errors.Is(serr, os.ErrProcessDone) && err == nil {
				err = fmt.Errorf("SIGKILL to PID %d: %w", p.pid, serr)
			}
		}
		h.Release()
	}
	slices.Sort(running)
	return running, err
}

// stuckMessage says which processes outlive SIGKILL, for how long, and why
// if a signal failed.
func stuckMessage(running []int, since time.Time, err error, meaning string) string {
	why := ""
	if err != nil {
		why = " (" + err.Error() + ")"
	}
	return fmt.Sprintf("%d processes CMD started are still running %v after SIGKILL%s (PIDs %s): %s",
		len(running), time.Since(since).Round(time.Second), why, pidList(running), meaning)
}

// reapChildren collects every child of this process that has ended,
// calling exited (if not nil) for each, and reports whether any child is
// left, ended or not.
func reapChildren(exited func(pid int, ws syscall.WaitStatus)) (left bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ECHILD):
			return false
		case err != nil || pid == 0:
			return true
		}
		if exited != nil {
			exited(pid, ws)
		}
	}
}

// pidList formats PIDs for a message: at most 10 of them.
func pidList(pids []int) string {
	var b strings.Builder
	for i, p := range pids {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(pids)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(p))
	}
	return b.String()
}

// stuckNote is how often a message repeats that processes are still
// running after SIGKILL.
const stuckNote = 30 * time.Second

// killAll kills every descendant of this process and waits until none is
// left, reaping them (exited is called for each child reaped). It returns
// once this process has no child left. While some survive SIGKILL (a
// process stuck in the kernel), it says so on stderr after a second and
// every stuckNote, with note: what that means for the lease.
func killAll(e IO, exited func(pid int, ws syscall.WaitStatus), note string) {
	self := os.Getpid()
	start := time.Now()
	var noted time.Time
	for round := 0; ; round++ {
		if !reapChildren(exited) {
			return
		}
		running, err := killTree(self)
		if len(running) > 0 && time.Since(start) > time.Second && time.Since(noted) >= stuckNote {
			noted = time.Now()
			e.errorf("%s", stuckMessage(running, start, err, note))
		}
		time.Sleep(killPoll(round, start))
	}
}

// killPoll is how long to wait before looking again for processes left
// after SIGKILL: a millisecond, doubling to 100ms, and a second once they
// have outlived a second (stuck).
func killPoll(round int, since time.Time) time.Duration {
	if time.Since(since) > time.Second {
		return time.Second
	}
	return min(time.Millisecond<<min(round, 10), 100*time.Millisecond)
}
