//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package supervise

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

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
