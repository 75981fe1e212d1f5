package supervise

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/once-go/once/cmd/once/internal/msg"
)

// The supervisor: "lease hold -- CMD" runs CMD under a copy of itself
// (/proc/self/exe started with argv[0] supervisorName), which is a child
// subreaper, starts CMD in a process group of its own, and stops
// CMD's whole tree:
//
//   - on hold's word: the lease was lost, hold got a signal to pass on;
//   - by itself at the end of the lease's safe window, whose end hold
//     sends at every renewal: SIGTERM to CMD's group --grace before it,
//     SIGKILL to every process below the supervisor at its end; so a
//     stopped (SIGSTOP) or hung hold that renews nothing still has CMD
//     stopped in time;
//   - when hold ends, however (its end of the control pipe closes), and
//   - when CMD exits: SIGKILL to whatever CMD left running, anywhere.
//
// It exits once it has no child left (with CMD's status, as a shell
// reports it), so no process CMD started is left when hold sees it exit
// and releases the lease. A process that survives SIGKILL (stuck in the
// kernel) keeps it waiting, and hold renewing, until it ends.
//
// The control pipe (fd 3) carries lines from hold:
//
//	deadline NS        the safe window now ends at CLOCK_MONOTONIC NS
//	stop SIG [REASON]  send SIG to CMD's group, SIGKILL to the tree after --grace
const supervisorName = "once-lease-hold-supervisor"

func init() {
	if len(os.Args) == 0 || os.Args[0] != supervisorName {
		return
	}
	// CMD's parent-death signal follows the thread that starts it: the
	// main thread, which lives as long as the process.
	runtime.LockOSThread()
	os.Exit(supervise(os.Args[1:]))
}

// supervisorArgs are the supervisor's arguments: --grace, the end of the
// safe window (CLOCK_MONOTONIC), the machine ID, then "--" and CMD.
func supervisorArgs(grace time.Duration, validUntil time.Time, machineID int, argv []string) []string {
	return append([]string{supervisorName, strconv.FormatInt(int64(grace), 10), strconv.FormatInt(toMono(validUntil), 10), strconv.Itoa(machineID), "--"}, argv...)
}

// ctlMsg is one line from hold; eof: hold's end of the pipe closed.
type ctlMsg struct {
	deadline int64 // CLOCK_MONOTONIC; 0: not a deadline
	sig      syscall.Signal
	reason   string
	eof      bool
}

func parseCtl(l string) (ctlMsg, bool) {
	verb, rest, _ := strings.Cut(l, " ")
	switch verb {
	case "deadline":
		ns, err := strconv.ParseInt(rest, 10, 64)
		return ctlMsg{deadline: ns}, err == nil && ns != 0
	case "stop":
		n, reason, _ := strings.Cut(rest, " ")
		sig, err := strconv.Atoi(n)
		return ctlMsg{sig: syscall.Signal(sig), reason: reason}, err == nil && sig > 0
	}
	return ctlMsg{}, false
}

// readCtl passes hold's lines on to c, then eof. The channel is drained by
// the supervisor in every state, so hold's writes never block for long.
func readCtl(f *os.File, c chan<- ctlMsg) {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := parseCtl(sc.Text()); ok {
			c <- m
		}
	}
	c <- ctlMsg{eof: true}
}

type supervisor struct {
	e         IO
	grace     time.Duration
	deadline  time.Time // the end of the safe window
	machineID int
	pid       int // CMD's; also its group's ID
	status    int // CMD's exit status, once exited
	exited    bool
	holdGone  bool
	stopping  bool      // CMD has been asked to stop
	killAt    time.Time // when the tree gets SIGKILL, once stopping
	killing   bool      // every process below gets SIGKILL until none is left
}

func supervise(args []string) int {
	e := IO{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Who: "once lease hold"}
	s := &supervisor{e: e}
	var st syscall.Stat_t
	if len(args) < 5 || args[3] != "--" || syscall.Fstat(3, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		msg.Errorf(os.Stderr, supervisorName, "not started by \"once lease hold\"")
		return exitUsage
	}
	grace, err1 := strconv.ParseInt(args[0], 10, 64)
	deadline, err2 := strconv.ParseInt(args[1], 10, 64)
	id, err3 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil || err3 != nil {
		msg.Errorf(os.Stderr, supervisorName, "not started by \"once lease hold\"")
		return exitUsage
	}
	s.grace, s.deadline, s.machineID = time.Duration(grace), fromMono(deadline), id
	syscall.CloseOnExec(3)
	ctlFile := os.NewFile(3, "control")
	if err := becomeSubreaper(); err != nil {
		s.e.errorf("cannot supervise CMD: %v", err)
		return exitFail
	}
	// Signals sent to the supervisor itself are passed on like hold's;
	// SIGPIPE (standard error closed) must not end it.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)

	argv := args[4:]
	c := groupCmd(argv)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		s.e.errorf("running %s: %v", msg.Quote(argv[0]), err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return ExitNotFound
		}
		return ExitCannotRun
	}
	s.pid = c.Process.Pid
	ctl := make(chan ctlMsg, 16)
	go readCtl(ctlFile, ctl)
	return s.run(ctl, sigs, chld)
}

func (s *supervisor) run(ctl chan ctlMsg, sigs, chld <-chan os.Signal) int {
	var (
		killStart time.Time
		noted     time.Time
		round     int
	)
	for {
		if !reapChildren(s.reaped) {
			// No child left, so no descendant: CMD has exited too.
			return s.status
		}
		if s.exited && !s.killing {
			s.killing = true // whatever CMD left running
		}
		var next time.Time
		switch {
		case s.killing:
			if killStart.IsZero() {
				killStart = time.Now()
			}
			running, err := killTree(os.Getpid())
			if len(running) > 0 && time.Since(killStart) > time.Second && time.Since(noted) >= stuckNote {
				noted = time.Now()
				s.e.errorf("%s", stuckMessage(running, killStart, err, s.stuckMeaning()))
			}
			next = time.Now().Add(killPoll(round, killStart))
			round++
		case s.stopping:
			next = s.killAt
		default:
			next = s.deadline.Add(-s.grace)
		}
		wake := time.NewTimer(time.Until(next))
		select {
		case <-chld:
		case m := <-ctl:
			s.handle(m)
			if m.eof {
				ctl = nil
			}
		case sig := <-sigs:
			if sig != syscall.SIGPIPE {
				s.stop(sig.(syscall.Signal), "")
			}
		case <-wake.C:
			now := time.Now()
			switch {
			case s.killing:
			case !s.stopping && !now.Before(s.deadline.Add(-s.grace)):
				s.stop(syscall.SIGTERM, fmt.Sprintf("lease of machine ID %d not renewed, %v left of its safe window",
					s.machineID, s.deadline.Sub(now).Round(time.Millisecond)))
			case s.stopping && !now.Before(s.killAt):
				s.e.errorf("CMD still running: SIGKILL")
				s.killing = true
			}
		}
		wake.Stop()
	}
}

// reaped records CMD's exit status when it is reaped.
func (s *supervisor) reaped(pid int, ws syscall.WaitStatus) {
	if pid != s.pid {
		return
	}
	s.exited = true
	s.status = ws.ExitStatus()
	if ws.Signaled() {
		s.status = 128 + int(ws.Signal())
	}
}

func (s *supervisor) handle(m ctlMsg) {
	switch {
	case m.eof:
		s.holdGone = true
		if !s.stopping && !s.exited {
			s.stop(syscall.SIGTERM, "hold has ended (nothing renews the lease)")
		}
	case m.deadline != 0:
		s.deadline = fromMono(m.deadline)
		if s.stopping && s.deadline.Before(s.killAt) {
			s.killAt = s.deadline
		}
	default:
		s.stop(m.sig, m.reason)
	}
}

// stop sends sig to CMD's process group and, the first time, sets when
// every process below gets SIGKILL: after --grace, at the latest at the
// end of the safe window.
func (s *supervisor) stop(sig syscall.Signal, why string) {
	if s.killing {
		return
	}
	if !s.stopping {
		s.stopping = true
		s.killAt = time.Now().Add(s.grace)
		if s.deadline.Before(s.killAt) {
			s.killAt = s.deadline
		}
		if why != "" {
			s.e.errorf("%s: stopping CMD (%s now, SIGKILL in %v)", why, sigName(sig), max(time.Until(s.killAt), 0).Round(time.Millisecond))
		}
	}
	if err := syscall.Kill(-s.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		s.e.errorf("sending %s to CMD: %v", sigName(sig), err)
	}
}

// stuckMeaning says what processes that outlive SIGKILL mean for the lease.
func (s *supervisor) stuckMeaning() string {
	if s.holdGone {
		return fmt.Sprintf("hold has ended, so the lease of machine ID %d is not renewed and will expire", s.machineID)
	}
	return fmt.Sprintf("hold releases the lease of machine ID %d only once they have ended", s.machineID)
}
