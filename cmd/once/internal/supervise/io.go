package supervise

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/once-go/once/cmd/once/internal/msg"
)

// Exit statuses.
const (
	exitFail      = 1   // a failure
	exitUsage     = 2   // the supervisor was not started by hold
	ExitCannotRun = 126 // CMD was found but could not be started
	ExitNotFound  = 127 // CMD was not found
)

// DefaultGrace is the default of --grace.
const DefaultGrace = 5 * time.Second

// MachineIDEnv is the variable that carries the machine ID to CMD.
const MachineIDEnv = "ONCE_MACHINE_ID"

// Lease is what the lease manager tells of its end.
type Lease interface {
	Done() <-chan struct{} // closed when the manager ends for good
	Err() error            // why no lease is held; nil while one is
}

// IO is where hold's output goes and who its messages name.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Who            string // "once lease hold"
}

func (e IO) errorf(format string, args ...any) { msg.Errorf(e.Stderr, e.Who, format, args...) }

// SyncWriter serialises writes from the lease manager's goroutine and
// hold's, flushing W after each write if it can.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *SyncWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.W.Write(p)
	if f, ok := l.W.(interface{ Flush() error }); ok && err == nil {
		err = f.Flush()
	}
	return n, err
}

// stderrFile returns the file under w, so that CMD writes its standard
// error itself rather than through a pipe; nil if w is no file.
func stderrFile(w io.Writer) *os.File {
	if l, ok := w.(*SyncWriter); ok {
		w = l.W
	}
	f, _ := w.(*os.File)
	return f
}
