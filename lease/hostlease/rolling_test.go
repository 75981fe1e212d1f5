package hostlease_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/lease/hostlease"
)

// idOf returns host's machine ID under list, or -1 and the error.
func idOf(t *testing.T, list []string, host string) (int, error) {
	t.Helper()
	return hostlease.New(hostlease.Config{Hosts: list, Identifiers: ids(host)}).MachineID()
}

// sharedIDs returns, for a rolling change from the list before to the
// list after, the pairs of distinct hosts that run with one machine ID
// while some hosts have restarted with the new list and some not.
func sharedIDs(t *testing.T, before, after []string, hosts ...string) []string {
	t.Helper()
	owner := map[int]string{}
	var clashes []string
	for _, list := range [][]string{before, after} {
		for _, h := range hosts {
			id, err := idOf(t, list, h)
			if err != nil {
				continue // not in this list
			}
			if o, ok := owner[id]; ok && o != h {
				clashes = append(clashes, o+" and "+h+" on ID "+strconv.Itoa(id))
			}
			owner[id] = h
		}
	}
	return clashes
}

// TestRollingChange: with host=ID entries, adding a host or removing one
// leaves every other host's ID where it was, so hosts that restarted with
// the new list and hosts still on the old one never share an ID.
func TestRollingChange(t *testing.T) {
	hosts := []string{"app-a", "app-b", "app-c", "app-d"}
	for _, c := range []struct {
		name          string
		before, after []string
	}{
		{"insert", []string{"app-a=0", "app-c=1"}, []string{"app-a=0", "app-b=2", "app-c=1"}},
		{"remove", []string{"app-a=0", "app-b=2", "app-c=1"}, []string{"app-a=0", "app-c=1"}},
		{"append", []string{"app-a=0", "app-c=1"}, []string{"app-a=0", "app-c=1", "app-d=7"}},
		{"move to a new ID", []string{"app-a=0", "app-c=1"}, []string{"app-a=0", "app-c=5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, list := range [][]string{c.before, c.after} {
				for _, h := range hosts {
					if _, err := idOf(t, list, h); err != nil && contains(list, h) {
						t.Fatalf("list %q, host %s: %v", list, h, err)
					}
				}
			}
			if clashes := sharedIDs(t, c.before, c.after, hosts...); len(clashes) > 0 {
				t.Fatalf("%q -> %q: %v", c.before, c.after, clashes)
			}
		})
	}
	if id, err := idOf(t, []string{"app-a=0", "app-b=2", "app-c=1"}, "app-c"); err != nil || id != 1 {
		t.Fatalf("app-c after inserting app-b = %d, %v; want its own ID 1", id, err)
	}
}

func contains(list []string, host string) bool {
	for _, e := range list {
		if strings.HasPrefix(e, host+"=") || e == host {
			return true
		}
	}
	return false
}

// TestPlainListRenumbers pins what the package documentation warns of: a
// plain list numbers hosts by their sorted place, so inserting app-b into
// [app-a, app-c] moves app-c from 1 to 2 and gives app-b the ID app-c
// holds until it restarts.
func TestPlainListRenumbers(t *testing.T) {
	before, after := []string{"app-a", "app-c"}, []string{"app-a", "app-b", "app-c"}
	clashes := sharedIDs(t, before, after, "app-a", "app-b", "app-c")
	if len(clashes) != 1 || clashes[0] != "app-c and app-b on ID 1" {
		t.Fatalf("clashes %q; want app-c and app-b on ID 1", clashes)
	}
	// Writing the plain list's IDs out moves nothing.
	explicit := []string{"app-a=0", "app-c=1"}
	if clashes := sharedIDs(t, before, explicit, "app-a", "app-c"); len(clashes) > 0 {
		t.Fatalf("plain -> explicit: %v", clashes)
	}
}
