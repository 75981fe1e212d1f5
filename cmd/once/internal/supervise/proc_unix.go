//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package supervise

import (
	"os/exec"
	"syscall"
)

// Supported: lease hold can run "-- CMD" on this platform.
const Supported = true

// groupCmd prepares argv to run in a process group of its own, so that
// hold's signals reach CMD and everything CMD starts (a shell's children)
// and nothing else.
func groupCmd(argv []string) *exec.Cmd {
	c := exec.Command(argv[0], argv[1:]...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithHold(c.SysProcAttr)
	return c
}
