//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package supervise

import (
	"errors"
	"os"
	"os/exec"
)

// Supported: lease hold cannot run "-- CMD" here (no process groups,
// no SIGTERM to send).
const Supported = false

func groupCmd(argv []string) *exec.Cmd { return exec.Command(argv[0], argv[1:]...) }

func signalGroup(c *exec.Cmd, s os.Signal) error {
	return errors.New("signals are not supported on this platform")
}

func exitStatus(ps *os.ProcessState) int { return ps.ExitCode() }
