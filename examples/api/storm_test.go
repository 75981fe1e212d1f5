package main

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/migrations"
)

// TestSIGKILLStorm restarts the real server on PostgreSQL from one working
// directory, killing it with SIGKILL as soon as it holds its machine ID,
// ONCE_STORM_RESTARTS times (default 60; 600 for the full run): each
// restart takes its own unexpired lease back through the state file, so
// the pool keeps serving and at most a few machine IDs are taken at the
// end, where a process that leaked one ID per crash would find all 512
// held at the 513th restart.
func TestSIGKILLStorm(t *testing.T) {
	restarts := 60
	if s := os.Getenv("ONCE_STORM_RESTARTS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "ONCE_STORM_RESTARTS=%q: want a positive number", s)
		require.GreaterOrEqual(t, n, 1, "ONCE_STORM_RESTARTS=%q: want a positive number", s)
		restarts = n
	}
	apiBinary(t)
	url, db := postgresURL(t)
	dir := t.TempDir() // the working directory every restart shares
	seen := map[int]int{}
	began := time.Now()
	var slowest time.Duration
	for i := 1; i <= restarts; i++ {
		start := time.Now()
		p, err := startAPI(t, dir, "DATABASE_URL="+url)
		if err != nil {
			held := 0
			for _, r := range leaseRows(t, db, migrations.Postgres) {
				if r.Held {
					held++
				}
			}
			require.NoError(t, err, "restart %d of %d failed (%d machine IDs held, %d distinct taken so far)", i, restarts, held, len(seen))
		}
		slowest = max(slowest, time.Since(start))
		p.kill()
		for _, r := range leaseRows(t, db, migrations.Postgres) {
			if r.Held {
				seen[r.ID]++
			}
		}
	}
	held := 0
	for _, r := range leaseRows(t, db, migrations.Postgres) {
		if r.Held {
			held++
		}
	}
	took := time.Since(began)
	t.Logf("%d SIGKILL restarts in %v (%v each, slowest start %v): %d machine IDs held at the end, %d distinct ever held",
		restarts, took.Round(time.Millisecond), (took / time.Duration(restarts)).Round(time.Millisecond), slowest.Round(time.Millisecond), held, len(seen))
	assert.LessOrEqual(t, held, 3, "machine IDs held after %d SIGKILL restarts from one place", restarts)
}
