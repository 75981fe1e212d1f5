package main

import (
	"context"
	"database/sql"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/once-go/once/internal/testenv"
)

// services opens each database the tests need (skipping or, with
// ONCE_TEST_REQUIRE=1, failing when it is down) and returns a config that
// uses the test DSNs.
func services(t *testing.T, dbName string) (config, *sql.DB) {
	t.Helper()
	c := config{pgDSN: testenv.PostgresDSN(), mysqlDSN: testenv.MySQLDSN(), orms: allORMs, modes: allModes, keys: allKeys}
	if dbName == "mysql" {
		return c, testenv.MySQL(t)
	}
	return c, testenv.Postgres(t)
}

// TestEveryConfiguration inserts a few rows with every ORM, mode and key
// type, two rounds, and checks what each configuration reports.
func TestEveryConfiguration(t *testing.T) {
	if err := setGenerator(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"postgres", "mysql", "postgres-prepare", "mysql-prepare"} {
		t.Run(name, func(t *testing.T) {
			dbName, prepare := strings.CutSuffix(name, "-prepare")
			c, _ := services(t, dbName)
			c.rows, c.rowsOne, c.batch, c.rounds = 25, 4, 10, 2
			c.prepare = prepare
			if prepare && dbName == "mysql" {
				c.serverPID = os.Getpid() // any process that can be read: this one
			}
			rs, err := runDB(t.Context(), c, dbName, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != len(allORMs)*len(allModes)*len(allKeys) {
				t.Fatalf("%d results, want one per ORM, mode and key", len(rs))
			}
			for _, r := range rs {
				want, batch := 25, 10
				if r.Mode == "one" {
					want, batch = 4, 1
				}
				if r.Rows != want || r.Batch != batch || r.Rounds != 2 || len(r.RoundRates) != 2 || r.RowsPerSecond <= 0 || r.AllocsPerRow <= 0 || (runtime.GOOS == "linux" && r.CPUUsPerRow <= 0) {
					t.Errorf("%s %s %s: %+v", r.ORM, r.Mode, r.Key, r)
				}
				if recorded := r.ServerUsPerRow > 0; recorded != (c.serverPID != 0 && runtime.GOOS == "linux") {
					t.Errorf("%s %s %s: server CPU %v µs/row with -server-pid %d", r.ORM, r.Mode, r.Key, r.ServerUsPerRow, c.serverPID)
				}
			}
		})
	}
}

// TestCloseDropsSchema checks that a run leaves no schema or database
// behind, also when a configuration's table is still there.
func TestCloseDropsSchema(t *testing.T) {
	for _, dbName := range allDBs {
		t.Run(dbName, func(t *testing.T) {
			c, admin := services(t, dbName)
			c.orms = []string{"bun"}
			e, err := openEnv(t.Context(), c, dbName)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.sqlDB.ExecContext(t.Context(), createTable(dbName, "once")); err != nil {
				t.Fatal(err)
			}
			if err := e.close(); err != nil {
				t.Fatal(err)
			}
			var n int
			q := "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1"
			if dbName == "mysql" {
				q = "SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?"
			}
			if err := admin.QueryRowContext(context.Background(), q, e.schema).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("schema %s still exists after close", e.schema)
			}
		})
	}
}
