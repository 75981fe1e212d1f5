//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// execSupported: lease hold can run "-- CMD" on this platform.
const execSupported = true

// groupCmd prepares argv to run in a process group of its own, so that
// hold's signals reach CMD and everything CMD starts (a shell's children)
// and nothing else.
func groupCmd(argv []string) *exec.Cmd {
	c := exec.Command(argv[0], argv[1:]...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithHold(c.SysProcAttr)
	return c
}

// signalGroup sends s to every process of c's group. A group already gone
// is not an error. Called after c has been reaped, it reaches what CMD
// left running; the group's ID cannot name another group while any of
// them lives.
func signalGroup(c *exec.Cmd, s os.Signal) error {
	sig, ok := s.(syscall.Signal)
	if !ok {
		return errors.New("not a Unix signal: " + s.String())
	}
	if err := syscall.Kill(-c.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// exitStatus is what a shell reports for a finished process: its exit
// code, or 128 plus the number of the signal that ended it.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
