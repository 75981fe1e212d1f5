//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package lease

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking advisory lock on f, released
// when f is closed or the process exits.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
