package sqllease_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/lease/driver"
	"github.com/once-go/once/lease/sqllease"
	"github.com/once-go/once/migrations"
)

// elixirTable creates a lease table as the Elixir library's migration
// does (NoNoncense.MachineId.Strategy.SqlLease.migrate/1, rendered by
// Ecto: no holder column) and fills it as its insert_all does, naming
// only id, lock_version and expires_at. It is dropped when t ends.
func elixirTable(t *testing.T, db *sql.DB, d migrations.Dialect) string {
	t.Helper()
	table := testenv.Unique(t, "ex")
	var create, insert, epoch string
	switch d {
	case migrations.Postgres:
		create = `CREATE TABLE "` + table + `" ("id" smallint, "token" bytea, "expires_at" timestamp NOT NULL, "lock_version" integer DEFAULT 0 NOT NULL, PRIMARY KEY ("id"))`
		insert, epoch = `INSERT INTO "`+table+`" ("expires_at","id","lock_version") VALUES ($1,$2,$3)`, "1970-01-01 00:00:00.000000"
	case migrations.MySQL:
		create = "CREATE TABLE `" + table + "` (`id` smallint, `token` varbinary(16), `expires_at` datetime(6) NOT NULL, `lock_version` integer DEFAULT 0 NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB"
		insert, epoch = "INSERT INTO `"+table+"` (`expires_at`,`id`,`lock_version`) VALUES (?,?,?)", "1970-01-01 00:00:00.000000"
	default:
		create = `CREATE TABLE "` + table + `" ("id" SMALLINT, "token" BLOB, "expires_at" TEXT NOT NULL, "lock_version" INTEGER DEFAULT 0 NOT NULL, PRIMARY KEY ("id"))`
		insert, epoch = `INSERT INTO "`+table+`" ("expires_at","id","lock_version") VALUES (?,?,?)`, "1970-01-01T00:00:00.000000Z"
	}
	mustExecDB(t, db, create)
	t.Cleanup(func() { migrations.Down(context.Background(), db, d, table) })
	for id := range migrations.Rows {
		mustExecDB(t, db, insert, epoch, id, 0)
	}
	return table
}

// TestElixirHolderColumn: the holder column is invisible to the Elixir
// library. On a table its migration made, then migrations.Apply (which
// adds the column and nothing else), the library's own statements,
// replayed, acquire, renew and release as on its own table; this
// strategy records its holder beside its leases and reports none for a
// row the Elixir library holds, although that row still carries the
// holder of the Go process that held it before; each side sees the
// other's leases as held.
func TestElixirHolderColumn(t *testing.T) {
	forEach(t, func(t *testing.T, d migrations.Dialect, db *sql.DB) {
		ctx := ctxT(t)
		table := elixirTable(t, db, d)
		s := newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1, Holder: "go-host/7"})
		if _, err := s.Acquire(ctx, time.Hour); err != nil {
			t.Fatalf("Acquire on the Elixir-made table without a holder column: %v", err)
		}
		if slots, err := s.List(ctx); err != nil || len(slots) != 1 || slots[0].Holder != "" {
			t.Fatalf("List without a holder column: %+v, %v; want machine ID 0 held, no holder", slots, err)
		}
		if err := migrations.Apply(ctx, db, d, table); err != nil {
			t.Fatalf("migrations.Apply on the Elixir-made table: %v", err)
		}
		var rows int
		q, _ := migrations.QuoteTable(d, table)
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+q+" WHERE holder IS NULL").Scan(&rows); err != nil || rows != migrations.Rows {
			t.Fatalf("after Apply: %d rows with a NULL holder, %v; want all %d (a new, empty column)", rows, err, migrations.Rows)
		}

		// A new strategy sees the column, records its holder.
		s = newStrategy(t, db, sqllease.Options{Dialect: d, Table: table, LowestFirst: true, Candidates: 1, Holder: "go-host/7"})
		g, err := s.Acquire(ctx, time.Hour)
		if err != nil || g.MachineID != 1 {
			t.Fatalf("Go Acquire: %+v, %v; want machine ID 1", g, err)
		}
		if err := s.Release(ctx, g); err != nil {
			t.Fatal(err)
		}
		waitFree(t, s, 1)

		// The Elixir library, replayed: claims the lowest free ID (1, whose
		// holder column still names the Go process), renews, sees Go's lease.
		ex := elixirStatements(d, table)
		const hour = int64(time.Hour / time.Millisecond)
		id, token, err := elixirAcquireToken(ctx, db, d, table, hour)
		if err != nil || id != 1 {
			t.Fatalf("Elixir acquire: %d, %v; want machine ID 1", id, err)
		}
		if n, err := elixirUpdate(ctx, db, ex.renew, hour, id, token); err != nil || n != 1 {
			t.Fatalf("Elixir renew: %d rows, %v; want 1", n, err)
		}
		g2, err := s.Acquire(ctx, time.Hour)
		if err != nil || g2.MachineID != 2 {
			t.Fatalf("Go Acquire while 0 and 1 are held: %+v, %v; want machine ID 2", g2, err)
		}
		if id2, err := elixirAcquire(ctx, db, d, table, hour); err != nil || id2 != 3 {
			t.Fatalf("Elixir acquire while 0, 1 and 2 are held: %d, %v; want 3", id2, err)
		}

		slots, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(slots[:min(len(slots), 4)])
		want := []struct {
			id     int
			holder string
			token  string
		}{{0, "", ""}, {1, "", hex.EncodeToString(token)}, {2, "go-host/7", g2.Token}, {3, "", ""}}
		if len(slots) != len(want) {
			t.Fatalf("List: %s; want machine IDs 0..3", got)
		}
		for i, w := range want {
			sl := slots[i]
			if sl.MachineID != w.id || sl.Holder != w.holder || (w.token != "" && sl.Token != w.token) || len(sl.Token) != 32 ||
				sl.TTL < 50*time.Minute || sl.TTL > time.Hour {
				t.Errorf("List slot %d: %+v; want machine ID %d, holder %q, token %q, about 1h left", i, sl, w.id, w.holder, w.token)
			}
		}
		var raw sql.NullString
		if err := db.QueryRowContext(ctx, "SELECT holder FROM "+q+" WHERE id = 1").Scan(&raw); err != nil || !strings.HasSuffix(raw.String, " go-host/7") {
			t.Errorf("holder column of row 1: %q, %v; want the stale Go holder, untouched by the Elixir library", raw.String, err)
		}

		// The Elixir release frees its row; Go renews and releases its own.
		if n, err := elixirUpdate(ctx, db, ex.release, id, token); err != nil || n != 1 {
			t.Fatalf("Elixir release: %d rows, %v; want 1", n, err)
		}
		if _, err := s.Renew(ctx, g2, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, driver.Lease{MachineID: slots[2].MachineID, Token: slots[2].Token}); err != nil {
			t.Fatal(err)
		}
		waitFree(t, s, 1)
		waitFree(t, s, 2)
	})
}
