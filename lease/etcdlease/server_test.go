package etcdlease_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
)

// etcdServer is a private etcd process on free loopback ports, for tests
// that restart or reconfigure a server (never the shared one). It is
// killed when the test ends.
type etcdServer struct {
	bin, dir   string
	addr, peer string
	cmd        *exec.Cmd
	exited     chan struct{}
}

// etcdBinary is ONCE_TEST_ETCD_BIN, or etcd on PATH (Debian's etcd-server
// package, which .ci/etcd.sh installs).
func etcdBinary(t testing.TB) string {
	t.Helper()
	testenv.Short(t, "a private etcd server")
	name := os.Getenv("ONCE_TEST_ETCD_BIN")
	if name == "" {
		name = "etcd"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		testenv.Unavailable(t, "etcd binary "+name+" not found (apt-get install etcd-server, or run .ci/etcd.sh)")
	}
	return p
}

func startEtcd(t testing.TB) *etcdServer {
	t.Helper()
	s := &etcdServer{bin: etcdBinary(t), dir: t.TempDir()}
	var err error
	for range 3 { // a free port can be taken between probing and binding
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(testenv.FreePort(t)))
		s.peer = net.JoinHostPort("127.0.0.1", strconv.Itoa(testenv.FreePort(t)))
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("private etcd: %v", err)
	}
	t.Cleanup(s.kill)
	return s
}

// start runs etcd on s.addr with its data in s.dir/data (kept across
// restarts) and waits until it answers /health.
func (s *etcdServer) start() error {
	log := filepath.Join(s.dir, "etcd.log")
	cmd := exec.Command(s.bin, "--name", "private", "--data-dir", filepath.Join(s.dir, "data"),
		"--listen-client-urls", "http://"+s.addr, "--advertise-client-urls", "http://"+s.addr,
		"--listen-peer-urls", "http://"+s.peer, "--initial-advertise-peer-urls", "http://"+s.peer,
		"--initial-cluster", "private=http://"+s.peer, "--logger", "zap", "--log-outputs", log,
		"--grpc-keepalive-min-time", "1s")
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := testenv.EtcdHealthy(s.addr, time.Second)
		switch {
		case err == nil:
			return nil
		case time.Now().After(deadline):
			s.kill()
			return fmt.Errorf("etcd on %s did not answer: %v", s.addr, err)
		}
		select {
		case <-s.exited:
			b, _ := os.ReadFile(log)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			return fmt.Errorf("etcd on %s exited: %s", s.addr, strings.Join(lines[max(len(lines)-3, 0):], "\n"))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// kill ends the server with SIGKILL (no chance to flush anything: etcd's
// write-ahead log must carry every acknowledged write).
func (s *etcdServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// restart kills the server and starts it again on the same ports; wipe
// deletes its data first (a new, empty cluster).
func (s *etcdServer) restart(wipe bool) error {
	s.kill()
	if wipe {
		if err := os.RemoveAll(filepath.Join(s.dir, "data")); err != nil {
			return err
		}
	}
	return s.start()
}
