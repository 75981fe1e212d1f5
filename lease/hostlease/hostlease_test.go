package hostlease_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/hostlease"
	"github.com/once-go/once/lease/leasetest"
)

func ids(v ...string) func() ([]string, error) {
	return func() ([]string, error) { return v, nil }
}

func TestConformance(t *testing.T) {
	leasetest.Run(t, leasetest.Harness{
		New: func(t *testing.T) func() driver.Strategy {
			return func() driver.Strategy {
				return hostlease.New(hostlease.Config{
					Hosts:       []string{"web-2.example", "10.0.0.7", "web-1.example"},
					Identifiers: ids("WEB-1.example.", "127.0.0.1", "fe80::1"),
				})
			}
		},
		Deterministic: true,
	})
}

func TestMachineID(t *testing.T) {
	hosts := []string{"web-b.example", " 10.0.0.9 ", "web-a.example", "2001:db8::1", "::ffff:10.0.0.3"}
	// sorted: 10.0.0.3, 10.0.0.9, 2001:db8::1, web-a.example, web-b.example
	for _, c := range []struct {
		mine []string
		want int
	}{
		{[]string{"web-a.example"}, 3},
		{[]string{"Web-B.Example."}, 4},
		{[]string{"localhost", "127.0.0.1", "10.0.0.9"}, 1},
		{[]string{"10.0.0.3"}, 0},
		{[]string{"2001:DB8:0::1", "fe80::1%eth0"}, 2},
		{[]string{"web-a.example", "web-a.example"}, 3},
	} {
		got, err := hostlease.New(hostlease.Config{Hosts: hosts, Identifiers: ids(c.mine...)}).MachineID()
		if err != nil || got != c.want {
			t.Errorf("identifiers %v: %d, %v; want %d", c.mine, got, err, c.want)
		}
	}
}

// TestExplicitIDs: host=ID entries give each host its ID, whatever the
// order and spelling; a host listed by name and by address with one entry
// each is still refused (see TestErrors).
func TestExplicitIDs(t *testing.T) {
	hosts := []string{"web-b.example = 17", " 10.0.0.9=0", "Web-A.Example.=511", "[2001:db8::1]=300", "::ffff:10.0.0.3=4"}
	for _, c := range []struct {
		mine []string
		want int
	}{
		{[]string{"web-a.example"}, 511},
		{[]string{"WEB-B.example"}, 17},
		{[]string{"localhost", "127.0.0.1", "10.0.0.9"}, 0},
		{[]string{"10.0.0.3"}, 4},
		{[]string{"2001:DB8:0::1", "fe80::1%eth0"}, 300},
	} {
		got, err := hostlease.New(hostlease.Config{Hosts: hosts, Identifiers: ids(c.mine...)}).MachineID()
		if err != nil || got != c.want {
			t.Errorf("identifiers %v: %d, %v; want %d", c.mine, got, err, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	many := make([]string, 513)
	for i := range many {
		many[i] = fmt.Sprintf("h%d.example", i)
	}
	long := strings.Repeat("a", 70) + ".example"
	for _, c := range []struct {
		name  string
		hosts []string
		mine  func() ([]string, error)
		want  string
	}{
		{"empty list", nil, ids("a"), "hostlease: the host list is empty"},
		{"too many", many, ids("h1.example"), "hostlease: the host list has 513 entries; at most 512 machine IDs exist"},
		{"duplicate", []string{"a.example", "A.example."}, ids("a.example"), `hostlease: the host list names "a.example" twice`},
		{"duplicate address", []string{"10.0.0.1", "::ffff:10.0.0.1"}, ids("10.0.0.1"), `names "10.0.0.1" twice`},
		{"bad entry", []string{"a.example", "not a host!"}, ids("a.example"), `hostlease: host list entry 1, "not a host!", is neither a hostname nor an IP address`},
		{"long bad entry", []string{long}, ids("a"), `entry 0, "` + strings.Repeat("a", 40) + `...", is neither`},
		{"40-byte bad entry", []string{strings.Repeat("a", 39) + "!"}, ids("a"), `entry 0, "` + strings.Repeat("a", 39) + `!", is neither`},
		{"no match", []string{"a.example", "b.example"}, ids("c.example", "10.1.1.1"), `hostlease: none of this host's identifiers ("c.example", "10.1.1.1") is in the host list of 2 entries`},
		{"loopback never matches", []string{"127.0.0.1", "localhost", "::1"}, ids("localhost", "127.0.0.1", "::1"), "none of this host's identifiers (none besides loopback and link-local)"},
		{"link-local never matches", []string{"fe80::1", "169.254.1.1"}, ids("fe80::1", "169.254.1.1"), "none of this host's identifiers (none besides loopback and link-local)"},
		{"listed twice", []string{"a.example", "10.0.0.1"}, ids("a.example", "10.0.0.1"), `this host is listed twice, as "a.example" and "10.0.0.1"`},
		{"listed twice, first as ID 0", []string{"a.example", "10.0.0.1"}, ids("10.0.0.1", "a.example"), `this host is listed twice, as "10.0.0.1" and "a.example"`},
		{"mixed", []string{"a.example=0", "b.example"}, ids("a.example"), `hostlease: the host list mixes host=ID entries (entry 0, "a.example=0") with plain ones (entry 1, "b.example"); give every host its ID`},
		{"mixed, plain first", []string{"b.example", "a.example=0"}, ids("b.example"), `mixes host=ID entries (entry 1, "a.example=0") with plain ones (entry 0, "b.example")`},
		{"mixed, the first of each named", []string{"a.example=0", "b.example=1", "c.example", "d.example"}, ids("a.example"), `mixes host=ID entries (entry 0, "a.example=0") with plain ones (entry 2, "c.example")`},
		{"mixed, plain ones first", []string{"c.example", "d.example", "a.example=0", "b.example=1"}, ids("a.example"), `mixes host=ID entries (entry 2, "a.example=0") with plain ones (entry 0, "c.example")`},
		{"ID twice", []string{"a.example=3", "b.example=4", "c.example=3"}, ids("a.example"), `hostlease: the host list gives machine ID 3 to both "a.example" and "c.example"`},
		{"host twice with IDs", []string{"a.example=3", "A.example.=4"}, ids("b.example"), `the host list names "a.example" twice`},
		{"ID out of range", []string{"a.example=512"}, ids("a.example"), `hostlease: host list entry 0, "a.example=512": the machine ID after '=' must be 0..511 in decimal`},
		{"negative ID", []string{"a.example=-1"}, ids("a.example"), `entry 0, "a.example=-1": the machine ID`},
		{"leading zero", []string{"a.example=07"}, ids("a.example"), `entry 0, "a.example=07": the machine ID`},
		{"empty ID", []string{"a.example="}, ids("a.example"), `entry 0, "a.example=": the machine ID`},
		{"two equals", []string{"a.example=1=2"}, ids("a.example"), `entry 0, "a.example=1=2": the machine ID`},
		{"no host", []string{"=1"}, ids("a.example"), `entry 0, "=1", is neither a hostname nor an IP address`},
		{"listed twice with IDs", []string{"a.example=1", "10.0.0.1=2"}, ids("a.example", "10.0.0.1"), `this host is listed twice, as "a.example" and "10.0.0.1"`},
		{"no match with IDs", []string{"a.example=1"}, ids("b.example"), `none of this host's identifiers ("b.example") is in the host list of 1 entries`},
		{"identifiers fail", []string{"a.example"}, func() ([]string, error) { return nil, errors.New("no interfaces") }, "cannot list this host's names and addresses: no interfaces"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := hostlease.New(hostlease.Config{Hosts: c.hosts, Identifiers: c.mine})
			_, err := s.MachineID()
			if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v; want ErrConfig containing %q", err, c.want)
			}
			if _, err := s.Acquire(t.Context(), driver.MinLeaseDuration); !errors.Is(err, driver.ErrConfig) {
				t.Errorf("Acquire: %v", err)
			}
		})
	}
}

// TestFullList: a list may name as many hosts as there are machine IDs;
// the last host of a full plain list gets the last ID.
func TestFullList(t *testing.T) {
	hosts := make([]string, 512)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%03d.example", i)
	}
	got, err := hostlease.New(hostlease.Config{Hosts: hosts, Identifiers: ids("h511.example")}).MachineID()
	if err != nil || got != 511 {
		t.Fatalf("512 hosts, this one last: %d, %v; want 511", got, err)
	}
}

func TestSystemIdentifiers(t *testing.T) {
	// The real host: its hostname alone in a list is found at index 0, or
	// the host is unnamed / named localhost (then no match, clearly said).
	s := hostlease.New(hostlease.Config{Hosts: []string{"zzz-not-this-host.invalid"}})
	if _, err := s.MachineID(); err == nil || !strings.Contains(err.Error(), "none of this host's identifiers") {
		t.Errorf("unknown host: %v", err)
	}
}
