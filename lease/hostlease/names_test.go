package hostlease_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/hostlease"
)

// TestHostnameLimits: a hostname may have 253 bytes and labels of 63
// bytes, of letters, digits (all ten), '-' and '_'; one byte more is
// refused.
func TestHostnameLimits(t *testing.T) {
	label63 := strings.Repeat("a", 62) + "z"
	name253 := strings.Join([]string{label63, label63, label63, strings.Repeat("b", 61)}, ".") // 63*3 + 61 + 3 dots
	if len(name253) != 253 {
		t.Fatalf("setup: %d bytes", len(name253))
	}
	for _, ok := range []string{label63 + ".example", name253, "web-0.example", "web-9.example", "a_b-z.example"} {
		got, err := hostlease.New(hostlease.Config{Hosts: []string{ok + "=3"}, Identifiers: ids(ok)}).MachineID()
		if err != nil || got != 3 {
			t.Errorf("%d-byte name %.20q...: %d, %v; want 3", len(ok), ok, got, err)
		}
	}
	for _, bad := range []string{"a" + label63 + ".example", name253 + "b", "web-:.example", "web-/.example"} {
		_, err := hostlease.New(hostlease.Config{Hosts: []string{bad}, Identifiers: ids("a.example")}).MachineID()
		if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), "is neither a hostname nor an IP address") {
			t.Errorf("%d-byte name %.20q...: %v; want it refused", len(bad), bad, err)
		}
	}
}
