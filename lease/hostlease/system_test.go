package hostlease_test

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/once-go/once/lease/hostlease"
)

// TestSystemHostname: without injected identifiers, this host is found by
// its hostname (os.Hostname).
func TestSystemHostname(t *testing.T) {
	h, err := os.Hostname()
	if err != nil || h == "" || strings.EqualFold(strings.TrimSuffix(h, "."), "localhost") {
		t.Skipf("this host has no usable name (%q, %v)", h, err)
	}
	s := hostlease.New(hostlease.Config{Hosts: []string{"zzz-not-this-host.invalid=1", h + "=5"}})
	if got, err := s.MachineID(); err != nil || got != 5 {
		t.Fatalf("hostname %q listed with ID 5: %d, %v", h, got, err)
	}
}

// TestSystemAddress: without injected identifiers, this host is found by
// an address of one of its interfaces (net.InterfaceAddrs), loopback and
// link-local ones excepted.
func TestSystemAddress(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("no interface addresses: %v", err)
	}
	var ip net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("this host has no address besides loopback and link-local ones")
	}
	s := hostlease.New(hostlease.Config{Hosts: []string{"zzz-not-this-host.invalid=1", ip.String() + "=7"}})
	if got, err := s.MachineID(); err != nil || got != 7 {
		t.Fatalf("address %s listed with ID 7: %d, %v", ip, got, err)
	}
}
