package main

import (
	"errors"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLite's extended result codes of a unique violation.
const (
	sqliteConstraintPrimaryKey = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY
	sqliteConstraintUnique     = 2067 // SQLITE_CONSTRAINT_UNIQUE
)

// isUniqueViolation reports whether err is a database's unique-key
// violation: PostgreSQL SQLSTATE 23505, MySQL and MariaDB error 1062, a
// SQLite primary-key or unique constraint. Answer it with a message of the
// application's own: the databases' messages quote the values that
// conflict, a stored key among them (MySQL: Duplicate entry
// '255517316472610818' for key 'PRIMARY'), which masking hides everywhere
// else.
func isUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	var my *mysql.MySQLError
	var lite interface{ Code() int }
	switch {
	case err == nil:
		return false
	case errors.As(err, &pg):
		return pg.Code == "23505"
	case errors.As(err, &my):
		return my.Number == 1062
	case errors.As(err, &lite):
		return lite.Code() == sqliteConstraintPrimaryKey || lite.Code() == sqliteConstraintUnique
	}
	return false
}
