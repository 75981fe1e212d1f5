package migrations_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	_ "github.com/once-go/once/internal/sqlitedrv" // the module's SQLite driver ("sqlite")
	"github.com/once-go/once/migrations"
)

func ExampleApply() {
	dir, _ := os.MkdirTemp("", "once-example")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()

	ctx := context.Background()
	// Safe to run at every start: creates the table once, then does nothing.
	for range 2 {
		if err := migrations.Apply(ctx, db, migrations.SQLite, migrations.DefaultTable); err != nil {
			panic(err)
		}
	}
	var n int
	db.QueryRowContext(ctx, "SELECT COUNT(*) FROM once_leases").Scan(&n)
	fmt.Println("rows:", n)
	// Output: rows: 512
}

func ExampleParseDialect() {
	d, err := migrations.ParseDialect("mariadb")
	fmt.Println(d, err)
	_, err = migrations.ParseDialect("oracle")
	fmt.Println(err)
	// Output:
	// mysql <nil>
	// migrations: unknown dialect "oracle" (want postgres, mysql or sqlite)
}

func ExampleFiles() {
	sub, _ := migrations.Files(migrations.Postgres)
	// Hand sub to golang-migrate: source, _ := iofs.New(sub, ".")
	entries, _ := fs.ReadDir(sub, ".")
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	// Output:
	// 000001_create_once_leases.down.sql
	// 000001_create_once_leases.up.sql
	// 000002_add_holder.down.sql
	// 000002_add_holder.up.sql
}
