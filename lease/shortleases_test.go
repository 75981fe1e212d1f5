//go:build !oncetest

package lease

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/once-go/once/lease/driver"
)

// TestNoShortLeasesInProduction: without the oncetest tag, options carry no
// mark and no option can ask for short leases.
func TestNoShortLeasesInProduction(t *testing.T) {
	assert.Zero(t, unsafe.Sizeof(testOptions{}))
	assert.False(t, Options{}.test.shortLeases())
	_, _, err := Options{LeaseDuration: 2 * driver.MinLeaseDuration / 3}.validate()
	assert.ErrorIs(t, err, ErrConfig)
}
