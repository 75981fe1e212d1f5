package testenv

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FreePort returns a loopback port for a server that a test starts and
// may kill and start again on the same port. It is taken from below the
// kernel's ephemeral range (ip_local_port_range, [EphemeralLow]), which
// outgoing connections and listeners on port 0 draw from: a port from that
// range can be taken by a parallel test's connection between the probe and
// the server's bind, or while a killed server is down. FreePort checks
// that nothing listens on the port and never returns one port twice in a
// process; across processes two tests can still pick the same one, so a
// server that fails to bind should be started on another.
func FreePort(t testing.TB) int {
	t.Helper()
	high := EphemeralLow()
	low := max(1024, high-12000)
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := low + rand.IntN(high-low)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatalf("testenv: no free loopback port in [%d, %d)", low, high)
	return 0
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// EphemeralLow returns the first port of the kernel's ephemeral range:
// the first number of /proc/sys/net/ipv4/ip_local_port_range, or 32768
// (Linux's default) where that file cannot be read.
func EphemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n <= 1024 {
		return 32768
	}
	return n
}

// TakenPort returns a loopback port that a listener holds until the test
// ends (it accepts connections and never answers), for tests of a server
// started on a port that was taken after it was probed.
func TakenPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
