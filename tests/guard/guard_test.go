package guard_test

import (
	"testing"

	"github.com/once-go/once/tests/guardsuite"
)

// TestSameOrdinal: see guardsuite.SameOrdinal.
func TestSameOrdinal(t *testing.T) { guardsuite.SameOrdinal(t, coordinators) }

// TestHandoffTimestamps: see guardsuite.HandoffTimestamps.
func TestHandoffTimestamps(t *testing.T) { guardsuite.HandoffTimestamps(t, coordinators) }
