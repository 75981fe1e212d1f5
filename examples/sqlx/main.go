// Command sqlx shows once IDs with sqlx: Fill before NamedExec (single and
// bulk), Get and Select into typed IDs, and sqlx.In with a slice of IDs.
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable go run ./examples/sqlx
//
// DATABASE_URL defaults to that local PostgreSQL; mysql://... works too.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jmoiron/sqlx"

	oncesqlx "github.com/once-go/once/adapters/sqlx"
	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/once"
)

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

type UserID = once.Typed[userSpec]

type User struct {
	ID    UserID `db:"id"`
	Email string `db:"email"`
}

func main() { exampledb.Main("sqlx", run) }

// run is the example proper: db is open and a machine-ID lease on it is
// held (exampledb.Run), so once IDs can be made.
func run(ctx context.Context, out io.Writer, db *exampledb.DB) (err error) {
	driver := map[migrations.Dialect]string{migrations.Postgres: "pgx", migrations.MySQL: "mysql", migrations.SQLite: "sqlite"}[db.Dialect]
	x := sqlx.NewDb(db.SQL, driver)
	drop := func() error {
		_, err := x.ExecContext(ctx, `DROP TABLE IF EXISTS sqlx_example_users`)
		return err
	}
	if err := drop(); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, drop()) }()
	// ColumnType: "bigint" for UserID (signed DB format) on PostgreSQL and MySQL.
	idType, err := oncesqlx.ColumnType(x, UserID{})
	if err != nil {
		return err
	}
	if _, err := x.ExecContext(ctx, `CREATE TABLE sqlx_example_users (id `+idType+
		` PRIMARY KEY, email varchar(320) NOT NULL)`); err != nil {
		return err
	}

	const insert = `INSERT INTO sqlx_example_users (id, email) VALUES (:id, :email)`
	ada := User{Email: "ada@example.com"}
	if err := oncesqlx.Fill(&ada); err != nil { // ada.ID is set now
		return err
	}
	if _, err := x.NamedExecContext(ctx, insert, &ada); err != nil {
		return err
	}
	more := []User{{Email: "grace@example.com"}, {Email: "edsger@example.com"}}
	if _, err := oncesqlx.NamedExec(ctx, x, insert, more); err != nil { // fill + bulk insert
		return err
	}

	var got User
	if err := x.GetContext(ctx, &got, x.Rebind(`SELECT id, email FROM sqlx_example_users WHERE id = ?`), ada.ID); err != nil {
		return err
	}
	fmt.Fprintf(out, "Get     %s %s\n", got.ID, got.Email)

	q, args, err := sqlx.In(`SELECT id, email FROM sqlx_example_users WHERE id IN (?) ORDER BY email`, []UserID{more[0].ID, more[1].ID})
	if err != nil {
		return err
	}
	var two []User
	if err := x.SelectContext(ctx, &two, x.Rebind(q), args...); err != nil {
		return err
	}
	for _, u := range two {
		fmt.Fprintf(out, "sqlx.In %s %s\n", u.ID, u.Email)
	}
	return nil
}
