package hostlease_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/hostlease"
)

// TestNoMatchListsIdentifiers: when this host is not in the list, the error
// lists its identifiers, each clipped to 40 bytes, until the list passes
// 120 bytes; the rest are counted. Here the first three take exactly 120
// bytes (45 + 2 + 45 + 2 + 26), so the fourth is still listed.
func TestNoMatchListsIdentifiers(t *testing.T) {
	long1 := strings.Repeat("a", 50) + ".example"
	long2 := strings.Repeat("b", 50) + ".example"
	mid := strings.Repeat("m", 16) + ".example" // 24 bytes
	mine := []string{long1, long2, mid, "d.example", "e.example", "f.example"}
	_, err := hostlease.New(hostlease.Config{Hosts: []string{"z.example"}, Identifiers: ids(mine...)}).MachineID()
	want := `none of this host's identifiers ("` + long1[:40] + `...", "` + long2[:40] + `...", "` + mid + `", "d.example", and 2 more) is in the host list of 1 entries`
	if !errors.Is(err, driver.ErrConfig) || !strings.Contains(err.Error(), want) {
		t.Fatalf("%v\nwant it to contain %s", err, want)
	}
}
