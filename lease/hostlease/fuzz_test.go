package hostlease_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/once-go/once/lease/hostlease"
)

// FuzzList: any list and identifier give either ErrConfig or an ID in
// 0..511; and the IDs of a list that passes, written out as host=ID
// entries, give every host the same ID again.
func FuzzList(f *testing.F) {
	f.Add("a.example,b.example,c.example", "b.example")
	f.Add("a.example=3,b.example=0", "a.example")
	f.Add("10.0.0.1=511, [::1]=2,x=07", "10.0.0.1")
	f.Add("a=1,a=2", "a")
	f.Fuzz(func(t *testing.T, list, me string) {
		hosts := strings.Split(list, ",")
		id, err := hostlease.New(hostlease.Config{Hosts: hosts, Identifiers: ids(me)}).MachineID()
		if err != nil {
			return
		}
		if id < 0 || id > 511 {
			t.Fatalf("ID %d outside 0..511", id)
		}
		// Round trip: every host's ID, written out, gives the same IDs.
		explicit := make([]string, len(hosts))
		for i, h := range hosts {
			name, _, _ := strings.Cut(h, "=")
			hid, err := hostlease.New(hostlease.Config{Hosts: hosts, Identifiers: ids(name)}).MachineID()
			if err != nil {
				return // an entry only loopback would match, or this host listed twice
			}
			explicit[i] = name + "=" + strconv.Itoa(hid)
		}
		again, err := hostlease.New(hostlease.Config{Hosts: explicit, Identifiers: ids(me)}).MachineID()
		if err != nil || again != id {
			t.Fatalf("list %q: ID %d; written out as %q: %d, %v", hosts, id, explicit, again, err)
		}
	})
}
