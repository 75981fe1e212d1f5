package migrations_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/once-go/once/migrations"
)

func ExampleInstallFunctions() {
	var db *sql.DB // PostgreSQL or MySQL/MariaDB, opened by the application
	install := func(ctx context.Context) error {
		// Idempotent: safe at every start, from every replica.
		return migrations.InstallFunctions(ctx, db, migrations.Postgres)
	}
	_ = install
	// Then, in SQL:
	//   SELECT * FROM users WHERE id = once_parse('usr_zAjhfZyAAAE', 'usr_');
	//   SELECT once_format(id, 'usr_'), once_time(id) FROM users;
}

func ExampleFunctionsSQL() {
	// The script for psql -f (FunctionsSQL(migrations.MySQL) for the mysql
	// client), for deployments that run SQL files themselves.
	src, err := migrations.FunctionsSQL(migrations.Postgres)
	if err != nil {
		panic(err)
	}
	for line := range strings.Lines(src) {
		if strings.HasPrefix(line, "CREATE OR REPLACE FUNCTION") {
			fmt.Print(strings.TrimPrefix(line, "CREATE OR REPLACE FUNCTION "))
		}
	}
	// Output:
	// once_format(v bigint, prefix text DEFAULT '')
	// once_parse(s text, prefix text DEFAULT '')
	// once_time(v bigint)
	// once_machine_id(v bigint)
	// once_min_id(t timestamp)
}
