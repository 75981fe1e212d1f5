package k8slease_test

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// child is a child process of the test binary (see TestMain). Its stdout
// lines arrive on lines; its stderr is kept and logged if the test fails.
// It is killed when the test ends.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{}
	mu     sync.Mutex
	stderr bytes.Buffer
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// startChild runs the test binary as child kind with the K8SLEASE_*
// variables env (name=value).
func startChild(t *testing.T, kind string, env ...string) *child {
	t.Helper()
	c := &child{lines: make(chan string, 4096), exited: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(append(os.Environ(), childEnv+"="+kind, "K8SLEASE_KUBECONFIG="+kubeconfigPath()), env...)
	c.cmd.Stderr = lockedWriter{&c.mu, &c.stderr}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		c.signal(syscall.SIGKILL)
		<-c.exited
		if t.Failed() {
			c.mu.Lock()
			s := c.stderr.String()
			c.mu.Unlock()
			if i := len(s) - 4000; i > 0 {
				s = s[i:]
			}
			t.Logf("%s child (pid %d) stderr:\n%s", kind, c.cmd.Process.Pid, s)
		}
	})
	return c
}

func (c *child) signal(sig syscall.Signal) { _ = c.cmd.Process.Signal(sig) }

// next returns the next line with the given prefix (skipping others),
// failing the test on timeout, exit, or an "error" line.
func (c *child) next(t *testing.T, prefix string, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-c.lines:
			switch {
			case !ok:
				t.Fatalf("child exited before printing %q", prefix)
			case strings.HasPrefix(l, "error "):
				t.Fatalf("child: %s", l)
			case strings.HasPrefix(l, prefix):
				return strings.TrimSpace(strings.TrimPrefix(l, prefix))
			}
		case <-deadline:
			t.Fatalf("child printed no %q within %v", prefix, timeout)
		}
	}
}

// holder is a holder child: a lease manager generating nonces.
type holder struct {
	*child
	id int

	mu    sync.Mutex
	maxTS int64 // the largest timestamp printed (unix ms)
	n     int   // timestamps printed
	done  chan struct{}
	rest  []string // lines after the timestamps (closed ...)
}

// startHolder starts a holder child in ns whose clock is off by skew, on
// leases of d, and waits until it holds a machine ID and has generated.
func startHolder(t *testing.T, ns string, skew, d time.Duration) *holder {
	t.Helper()
	c := startChild(t, "holder", "K8SLEASE_NS="+ns, "K8SLEASE_SKEW="+skew.String(), "K8SLEASE_LEASE="+d.String())
	id, err := strconv.Atoi(c.next(t, "id ", 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	h := &holder{child: c, id: id, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		for l := range c.lines {
			ts, ok := strings.CutPrefix(l, "ts ")
			h.mu.Lock()
			if ok {
				if v, err := strconv.ParseInt(ts, 10, 64); err == nil {
					h.maxTS, h.n = max(h.maxTS, v), h.n+1
				}
			} else {
				h.rest = append(h.rest, l)
			}
			h.mu.Unlock()
		}
	}()
	for end := time.Now().Add(20 * time.Second); h.generated() < 20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("holder generated %d nonces in 20s", h.generated())
		}
	}
	return h
}

func (h *holder) generated() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// last waits for the holder's output to end and returns its largest
// timestamp and the lines after the timestamps.
func (h *holder) last(t *testing.T) (time.Time, []string) {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(20 * time.Second):
		t.Fatal("holder's output did not end")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return time.UnixMilli(h.maxTS), h.rest
}
