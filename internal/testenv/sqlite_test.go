package testenv

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSQLiteConcurrentFirstUse: the pool SQLite returns can be used by
// many goroutines at once from the start. Each new connection runs the
// DSN's journal_mode(WAL) pragma; on a fresh file the switch to WAL needs
// an exclusive lock and fails with SQLITE_BUSY at once, whatever the busy
// timeout, when other connections are opening too.
func TestSQLiteConcurrentFirstUse(t *testing.T) {
	for range 100 {
		db := SQLite(t)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				c, err := db.Conn(t.Context())
				if err == nil {
					_, err = c.ExecContext(t.Context(), "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY)")
					c.Close()
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err, "a connection of a fresh pool")
		}
		db.Close()
	}
}
