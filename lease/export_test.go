package lease

import (
	"testing"
	"time"
)

// Defaults of Options that the tests check against.
const (
	DefaultAcquireTimeout = defaultAcquireTimeout
	DefaultHandoffSkew    = defaultHandoffSkew
)

// ResultOf classifies an error as the manager's log records it
// ("result").
var ResultOf = resultOf

// SetBootClock replaces the boot clock the state file records, for a
// test; the returned function restores it.
func SetBootClock(f func() (time.Duration, bool)) (restore func()) {
	prev := bootClock
	bootClock = f
	return func() { bootClock = prev }
}

// StartProcess starts a helper process and returns its PID and identity
// as a state file records it (the JSON of the "process" field); it runs
// until stop (which waits for it to exit) or the end of the test.
func StartProcess(t *testing.T) (pid int, identity string, stop func()) {
	cmd, stdin, id := startProcess(t)
	return cmd.Process.Pid, id, func() {
		stdin.Close()
		cmd.Wait()
	}
}

// Jitter draws a backoff jitter for base.
var Jitter = jitter
