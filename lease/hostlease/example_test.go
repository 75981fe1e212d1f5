package hostlease_test

import (
	"fmt"

	"github.com/once-go/once/lease/hostlease"
)

// Each host gets its machine ID in the list, so adding app-b later (with
// an ID no other entry has) moves nobody.
func Example() {
	s := hostlease.New(hostlease.Config{
		Hosts: []string{"app-a.example=0", "app-c.example=1", "app-b.example=2"},
		// Identifiers is for the example; by default the strategy uses
		// os.Hostname and the interface addresses.
		Identifiers: func() ([]string, error) { return []string{"app-c.example"}, nil },
	})
	id, err := s.MachineID()
	fmt.Println(id, err)
	// Output: 1 <nil>
}
