package redislease_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
)

// TestClusterPortTaken starts a test cluster whose first node is handed a
// cluster bus port that another socket holds, as happens when a probed
// port is taken before redis-server binds it. The node must come up on
// other ports and the cluster must form.
func TestClusterPortTaken(t *testing.T) {
	bins := redis7Binaries(t)
	t.Parallel()
	taken := testenv.TakenPort(t)
	first := true
	pick := func(t *testing.T, n int) []string {
		ports := freePorts(t, n)
		if first {
			first = false
			ports[1] = taken
		}
		return ports
	}
	tc := startClusterOn(t, bins, pick)
	require.Len(t, tc.nodes, 6)
	for _, n := range tc.nodes {
		assert.NotContains(t, n.args, taken, "node %s was left on the taken port", n.addr)
	}
}
