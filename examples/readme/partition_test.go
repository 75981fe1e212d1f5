package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

var dayPartition = regexp.MustCompile(`\breadings_\d{8}\b`)

// TestSQLPartitionByDay runs the day-partitioning recipe of docs/sql.md
// (its PostgreSQL block that creates the readings table) in a schema of its
// own, inserts sortable IDs made at the first millisecond, noon and the last
// millisecond of each of the recipe's seven days, and checks that every row
// is in its day's partition and that the plan of a one-day range on id
// reads exactly that partition, pruned when planned (no once_ call and no
// run-time pruning left in the plan).
func TestSQLPartitionByDay(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "sql.md"))
	require.NoError(t, err)
	var recipe string
	for _, b := range strings.Split(string(page), "```sql\n")[1:] {
		b, _, _ = strings.Cut(b, "```")
		if strings.HasPrefix(b, "-- PostgreSQL\n") && strings.Contains(b, "CREATE TABLE readings") {
			recipe = b
		}
	}
	require.NotEmpty(t, recipe, "docs/sql.md: a -- PostgreSQL block that creates the readings table")

	db, _ := testenv.PostgresSchema(t, "rdday")
	ctx := t.Context()
	require.NoError(t, installSQLFunctions(ctx, db))
	for _, st := range sqlStatements(recipe) {
		runStatement(t, db, st.sql, st.want)
	}
	if t.Failed() {
		t.FailNow()
	}

	first := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const days = 7
	for d := range days {
		day := first.AddDate(0, 0, d)
		want := "readings_" + day.Format("20060102")
		for _, at := range []time.Time{day, day.Add(12 * time.Hour), day.Add(24*time.Hour - time.Millisecond)} {
			f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 5, Now: func() time.Time { return at }})
			require.NoError(t, err)
			v, err := f.Sortable64()
			require.NoError(t, err)
			id := once.FromUint64(v)
			var part string
			require.NoError(t, db.QueryRowContext(ctx,
				"INSERT INTO readings (id, sensor, value) VALUES ($1, $2, 0) RETURNING tableoid::regclass::text", id, d).Scan(&part))
			assert.Equal(t, want, part, "the row of ID %s, made at %s", id, at.Format(time.RFC3339Nano))
		}
	}

	for d := range days {
		day := first.AddDate(0, 0, d)
		where := "id >= once_min_id('" + day.Format(time.DateOnly) + "') AND id < once_min_id('" + day.AddDate(0, 0, 1).Format(time.DateOnly) + "')"
		rows, err := db.QueryContext(ctx, "EXPLAIN (COSTS OFF) SELECT * FROM readings WHERE "+where)
		require.NoError(t, err)
		var plan strings.Builder
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			plan.WriteString(line + "\n")
		}
		require.NoError(t, rows.Err())
		rows.Close()
		p := plan.String()
		parts := dayPartition.FindAllString(p, -1)
		slices.Sort(parts)
		assert.Equal(t, []string{"readings_" + day.Format("20060102")}, slices.Compact(parts), "WHERE %s reads:\n%s", where, p)
		assert.NotContains(t, p, "Subplans Removed", "WHERE %s: pruned only when run:\n%s", where, p)
		assert.NotContains(t, p, "once_", "WHERE %s: not folded when planned:\n%s", where, p)
		var n int
		require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM readings WHERE "+where).Scan(&n))
		assert.Equal(t, 3, n, "rows WHERE %s", where)
	}
}
