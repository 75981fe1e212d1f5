package sqllease_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
)

// TestPrivateMariaDBPortTaken starts a private MariaDB server on a port
// that another socket holds, as happens when the port startMariaDB probed
// is taken before mariadbd binds it. The server must come up on another
// port.
func TestPrivateMariaDBPortTaken(t *testing.T) {
	t.Parallel()
	taken := testenv.TakenPort(t)
	first := true
	pick := func(t *testing.T) string {
		if first {
			first = false
			return taken
		}
		return freePort(t)
	}
	port := startMariaDBOn(t, pick, nil)
	assert.NotEqual(t, taken, port, "the server was left on the taken port")
	db := openMariaDB(t, "root@tcp(127.0.0.1:"+port+")/test")
	require.NoError(t, db.PingContext(ctxT(t)))
}
