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

// fileIdentity returns the device and inode of an open file.
func fileIdentity(f *os.File) fileID {
	fi, err := f.Stat()
	if err != nil {
		return fileID{}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
	}
	return fileID{}
}
