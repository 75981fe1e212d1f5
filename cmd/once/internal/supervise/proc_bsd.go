//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package supervise

import "syscall"

// dieWithHold does nothing here: no parent-death signal is used on this
// platform, so a CMD whose hold is killed with SIGKILL keeps running.
func dieWithHold(*syscall.SysProcAttr) {}
