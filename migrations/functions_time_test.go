package migrations_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// sqlTime spells t (UTC, microseconds) as a timestamp literal both
// databases read.
func sqlTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000000") }

// TestOnceMinIDMatchesGo: once_min_id(t) is once.MinID(t) (the lowest
// value whose timestamp is at or after t) for random instants with
// microseconds and the edges, 0 at the epoch itself, and an error where Go
// has one.
func TestOnceMinIDMatchesGo(t *testing.T) {
	epoch := nonce.DefaultEpoch()
	end := epoch.Add((1 << 42) * time.Millisecond)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	instants := []time.Time{epoch, epoch.Add(time.Microsecond), epoch.Add(time.Millisecond),
		epoch.Add(time.Millisecond - time.Microsecond), epoch.Add((1 << 41) * time.Millisecond),
		epoch.Add((1<<41)*time.Millisecond - time.Microsecond), end.Add(-time.Millisecond),
		end.Add(-time.Millisecond + time.Microsecond), end.Add(-time.Microsecond), end,
		epoch.Add(-time.Microsecond), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	for i := range 2000 {
		at := epoch.Add(time.Duration(r.Int64N(int64(end.Sub(epoch))))).Truncate(time.Microsecond)
		if i%4 == 0 {
			at = at.Truncate(time.Millisecond)
		}
		instants = append(instants, at)
	}
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := functionsDB(t, d), ctxT(t)
			stmt, err := db.PrepareContext(ctx, "SELECT once_min_id("+ph(d, 1)+")")
			require.NoError(t, err)
			defer stmt.Close()
			if d == migrations.Postgres {
				stmt.Close()
				stmt, err = db.PrepareContext(ctx, "SELECT once_min_id($1::timestamp)")
				require.NoError(t, err)
			}
			for _, at := range instants {
				want, goErr := once.MinID[once.ID](at)
				var got int64
				err := stmt.QueryRowContext(ctx, sqlTime(at)).Scan(&got)
				switch {
				case goErr != nil:
					assert.ErrorIs(t, goErr, once.ErrTimeRange, "Go's MinID(%s)", sqlTime(at))
					if assert.Error(t, err, "once_min_id(%s) = %d; Go: %v", sqlTime(at), got, goErr) {
						assert.Contains(t, err.Error(), "once_min_id: time", "once_min_id(%s)", sqlTime(at))
					}
				case !assert.NoError(t, err, "once_min_id(%s); Go: %d", sqlTime(at), want.Int64()):
				case at.Equal(epoch) && got == 0:
				default:
					assert.Equal(t, want.Int64(), got, "once_min_id(%s); Go's MinID", sqlTime(at))
				}
			}
		})
	}
}

var (
	pgRelation   = regexp.MustCompile(`on (ev_\d+_\d+)`)
	jsonPartList = regexp.MustCompile(`"partitions":\s*\[([^\]]*)\]`)
	jsonPartName = regexp.MustCompile(`"(\w+)"`)
)

// scanned returns the partitions of ev that a plan reads, and for
// PostgreSQL how many it prunes when the query runs ("Subplans Removed").
// set, when not empty, runs first on the same connection.
func scanned(t *testing.T, db *sql.DB, d migrations.Dialect, set, query string, args ...any) (parts []string, removed, plan string) {
	t.Helper()
	q := "EXPLAIN (COSTS OFF) " + query
	if d == migrations.MySQL {
		q = "EXPLAIN FORMAT=JSON " + query
	}
	conn, err := db.Conn(t.Context())
	require.NoError(t, err)
	defer conn.Close()
	if d == migrations.MySQL {
		// MySQL 9's default JSON format lists no partitions; MariaDB has
		// no such variable.
		conn.ExecContext(t.Context(), "SET SESSION explain_json_format_version = 1")
	}
	if set != "" {
		_, err := conn.ExecContext(t.Context(), set)
		require.NoError(t, err, "%s", set)
	}
	rows, err := conn.QueryContext(t.Context(), q, args...)
	require.NoError(t, err, "%s", q)
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		b.WriteString(line + "\n")
	}
	require.NoError(t, rows.Err())
	plan = b.String()
	if d == migrations.Postgres {
		for _, m := range pgRelation.FindAllStringSubmatch(plan, -1) {
			parts = append(parts, m[1])
		}
		if m := regexp.MustCompile(`Subplans Removed: (\d+)`).FindStringSubmatch(plan); m != nil {
			removed = m[1]
		}
	} else {
		for _, l := range jsonPartList.FindAllStringSubmatch(plan, -1) {
			for _, m := range jsonPartName.FindAllStringSubmatch(l[1], -1) {
				parts = append(parts, m[1])
			}
		}
	}
	slices.Sort(parts)
	return slices.Compact(parts), removed, plan
}

// TestFunctionsPartitionPruning: a table range-partitioned on id by month
// with once_min_id bounds is pruned to one partition by conditions on id
// written with once_min_id and once_parse, at plan time for constants and,
// on PostgreSQL, at run time for parameters of a generic plan. The control:
// a condition on once_time(id) reads every partition.
func TestFunctionsPartitionPruning(t *testing.T) {
	months := []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	all := []string{"ev_2026_01", "ev_2026_02", "ev_2026_03"}
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := functionsDB(t, d), ctxT(t)
			var ddl []string
			if d == migrations.Postgres {
				ddl = append(ddl, "CREATE TABLE ev (id bigint PRIMARY KEY, body text) PARTITION BY RANGE (id)")
				for i, m := range months[:3] {
					ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s PARTITION OF ev FOR VALUES FROM (once_min_id('%s')) TO (once_min_id('%s'))",
						all[i], sqlTime(m), sqlTime(months[i+1])))
				}
			} else {
				// MySQL takes only literal partition bounds: once_min_id computes them.
				parts := make([]string, 3)
				for i, m := range months[1:] {
					var bound int64
					require.NoError(t, db.QueryRowContext(ctx, "SELECT once_min_id(?)", sqlTime(m)).Scan(&bound))
					parts[i] = fmt.Sprintf("PARTITION %s VALUES LESS THAN (%d)", all[i], bound)
				}
				ddl = append(ddl, "CREATE TABLE ev (id BIGINT PRIMARY KEY, body TEXT) PARTITION BY RANGE (id) ("+strings.Join(parts, ", ")+")")
			}
			for _, s := range ddl {
				_, err := db.ExecContext(ctx, s)
				require.NoError(t, err, "%s", s)
			}
			// One sortable ID per month, made at noon on the 10th.
			ids := make([]once.ID, 3)
			for i, m := range months[:3] {
				at := m.AddDate(0, 0, 9).Add(12 * time.Hour)
				f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 7, Now: func() time.Time { return at }})
				require.NoError(t, err)
				v, err := f.Sortable64()
				require.NoError(t, err)
				ids[i] = once.FromUint64(v)
				_, err = db.ExecContext(ctx, "INSERT INTO ev (id, body) VALUES ("+ph(d, 1)+", 'x')", ids[i])
				require.NoError(t, err)
			}
			feb10 := "'2026-02-10 00:00:00'"
			if d == migrations.Postgres {
				feb10 = "TIMESTAMP " + feb10
			}
			// Oracle MySQL (8 and later) does not use a stored function's
			// result for a range or for pruning, so the bounds are computed
			// first: as parameters, or into user variables in a console.
			oracle := d == migrations.MySQL && testenv.OracleMySQL(t, db)
			var lo, hi, v int64
			for q, dst := range map[string]*int64{"SELECT once_min_id('2026-02-10')": &lo,
				"SELECT once_min_id('2026-02-11')": &hi, "SELECT once_parse('" + ids[2].String() + "', '')": &v} {
				require.NoError(t, db.QueryRowContext(ctx, q).Scan(dst))
			}
			type query struct {
				set, where string
				args       []any
				want       []string
			}
			cases := []query{
				{"", "id >= once_min_id('2026-02-10') AND id < once_min_id('2026-02-11')", nil, all[1:2]},
				{"", "id = once_parse('" + ids[2].String() + "', '')", nil, all[2:3]},
				{"", "once_time(id) >= " + feb10, nil, all}, // the control: not on id, not pruned
			}
			if oracle {
				cases = []query{
					{"", "id >= ? AND id < ?", []any{lo, hi}, all[1:2]},
					{"", "id = ?", []any{v}, all[2:3]},
					{"SET @lo = once_min_id('2026-02-10'), @hi = once_min_id('2026-02-11')", "id >= @lo AND id < @hi", nil, all[1:2]},
					{"", "once_time(id) >= " + feb10, nil, all},
				}
				got, _, _ := scanned(t, db, d, "", "SELECT * FROM ev WHERE id >= once_min_id('2026-02-10') AND id < once_min_id('2026-02-11')")
				t.Logf("Oracle MySQL: once_min_id in the WHERE reads %v", got)
			}
			for _, c := range cases {
				got, removed, plan := scanned(t, db, d, c.set, "SELECT * FROM ev WHERE "+c.where, c.args...)
				assert.Equal(t, c.want, got, "WHERE %s %v reads", c.where, c.args)
				// IMMUTABLE: the planner folds the calls to constants and
				// prunes at plan time (a STABLE function would be called
				// when the plan starts and prune then).
				if d == migrations.Postgres && len(c.want) == 1 {
					assert.Empty(t, removed, "WHERE %s: not pruned at plan time:\n%s", c.where, plan)
					assert.NotContains(t, plan, "once_", "WHERE %s: not pruned at plan time", c.where)
				}
			}
			var n int
			if assert.NoError(t, db.QueryRowContext(ctx, "SELECT COUNT(*) FROM ev WHERE id >= once_min_id('2026-02-10') AND id < once_min_id('2026-02-11')").Scan(&n), "rows of 2026-02-10") {
				assert.Equal(t, 1, n, "rows of 2026-02-10")
			}
			if d != migrations.Postgres {
				return
			}
			// A generic plan: the parameters are known only when it runs.
			conn, err := db.Conn(ctx)
			require.NoError(t, err)
			defer conn.Close()
			for _, s := range []string{"SET plan_cache_mode = force_generic_plan",
				"PREPARE q(timestamp) AS SELECT * FROM ev WHERE id >= once_min_id($1) AND id < once_min_id($1 + interval '1 day')"} {
				_, err := conn.ExecContext(ctx, s)
				require.NoError(t, err)
			}
			rows, err := conn.QueryContext(ctx, "EXPLAIN (COSTS OFF) EXECUTE q('2026-03-10')")
			require.NoError(t, err)
			var plan strings.Builder
			for rows.Next() {
				var l string
				rows.Scan(&l)
				plan.WriteString(l + "\n")
			}
			rows.Close()
			p := plan.String()
			assert.Contains(t, p, "Subplans Removed: 2", "generic plan for 2026-03-10 does not prune to ev_2026_03")
			assert.Contains(t, p, "ev_2026_03", "generic plan for 2026-03-10 does not prune to ev_2026_03")
		})
	}
}
