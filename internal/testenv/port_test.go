package testenv_test

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
)

// TestFreePort checks that FreePort hands out distinct ports below the
// ephemeral range that a server can bind.
func TestFreePort(t *testing.T) {
	low := testenv.EphemeralLow()
	seen := map[int]bool{}
	for range 200 {
		p := testenv.FreePort(t)
		require.Less(t, p, low, "port %d is in the ephemeral range, where outgoing connections can take it", p)
		require.GreaterOrEqual(t, p, 1024)
		require.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
	}
	for p := range seen {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if assert.NoError(t, err, "port %d", p) {
			l.Close()
		}
	}
}

// TestTakenPort checks that the port TakenPort returns cannot be bound.
func TestTakenPort(t *testing.T) {
	p := testenv.TakenPort(t)
	l, err := net.Listen("tcp", "127.0.0.1:"+p)
	if err == nil {
		l.Close()
	}
	assert.Error(t, err, "port %s was free", p)
}
