//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package lease

import (
	"errors"
	"os"
	"runtime"
)

// lockFile fails: Options.StateFile needs flock, which this platform lacks.
func lockFile(*os.File) error {
	return errors.New("file locking is not supported on " + runtime.GOOS)
}

// fileIdentity returns zero: unknown.
func fileIdentity(*os.File) fileID { return fileID{} }
