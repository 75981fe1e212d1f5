package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	_ "github.com/go-sql-driver/mysql" // driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"

	"github.com/once-go/once/bench/internal/multirow"
)

// dialect holds everything that differs between PostgreSQL and MariaDB.
type dialect interface {
	driver() string
	createTable(name string, col column) string
	// placeholder returns the n-th (1-based) bind parameter.
	placeholder(n int) string
	uuidArg(u [16]byte) any
	// sizes refreshes statistics and returns the table and primary-index bytes.
	sizes(ctx context.Context, db *sql.DB, table string) (tableBytes, indexBytes int64, err error)
	dropTable(name string) string
	// pgStats reports whether the server's WAL and buffer counters are read
	// around each load (PostgreSQL) and -explain works.
	pgStats() bool
}

func newDialect(name string) (dialect, error) {
	switch name {
	case "postgres":
		return postgres{}, nil
	case "mysql":
		return mysql{}, nil
	}
	return nil, fmt.Errorf("-db must be postgres or mysql, not %q", name)
}

// The payload is identical for every key type: an int and a 32-character
// ASCII string.

type postgres struct{}

func (postgres) driver() string { return "pgx" }

func (postgres) createTable(name string, col column) string {
	id := map[column]string{
		colBigint: "bigint PRIMARY KEY",
		colUUID:   "uuid PRIMARY KEY",
		colSerial: "bigserial PRIMARY KEY",
		// PostgreSQL 18 and later; run only where the server has uuidv7() (see keysFor).
		colUUIDServer: "uuid PRIMARY KEY DEFAULT uuidv7()",
	}[col]
	return fmt.Sprintf("CREATE TABLE %s (id %s, n integer NOT NULL, s text NOT NULL)", name, id)
}

func (postgres) placeholder(n int) string { return "$" + strconv.Itoa(n) }

// pgx encodes a [16]byte natively (binary) into a uuid parameter.
func (postgres) uuidArg(u [16]byte) any { return u }

// sizes runs VACUUM ANALYZE, then reads pg_relation_size (main fork only,
// no free-space/visibility maps, no TOAST) of the heap and of the primary-key
// index.
func (postgres) sizes(ctx context.Context, db *sql.DB, table string) (int64, int64, error) {
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE "+table); err != nil {
		return 0, 0, err
	}
	var tableBytes, indexBytes int64
	err := db.QueryRowContext(ctx, `
		SELECT pg_relation_size(i.indrelid), pg_relation_size(i.indexrelid)
		FROM pg_index i
		WHERE i.indrelid = $1::regclass AND i.indisprimary`, table).Scan(&tableBytes, &indexBytes)
	return tableBytes, indexBytes, err
}

func (postgres) dropTable(name string) string { return "DROP TABLE IF EXISTS " + name }

func (postgres) pgStats() bool { return true }

type mysql struct{}

func (mysql) driver() string { return "mysql" }

func (mysql) createTable(name string, col column) string {
	id := map[column]string{
		colBigint: "BIGINT NOT NULL PRIMARY KEY",
		colUUID:   "BINARY(16) NOT NULL PRIMARY KEY",
		colSerial: "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY",
	}[col]
	return fmt.Sprintf("CREATE TABLE %s (id %s, n INT NOT NULL, s VARCHAR(32) CHARACTER SET ascii NOT NULL) ENGINE=InnoDB", name, id)
}

func (mysql) placeholder(int) string { return "?" }

func (mysql) uuidArg(u [16]byte) any { return u[:] }

// sizes runs ANALYZE TABLE, then reads information_schema.TABLES. InnoDB
// stores the rows inside the primary-key B-tree (a clustered index), so
// data_length is the primary index including the rows; index_length counts
// only secondary indexes (none here). Both table and index bytes are
// therefore data_length: the key type shapes that whole tree.
func (mysql) sizes(ctx context.Context, db *sql.DB, table string) (int64, int64, error) {
	rows, err := db.QueryContext(ctx, "ANALYZE TABLE "+table)
	if err != nil {
		return 0, 0, err
	}
	for rows.Next() { // ANALYZE TABLE returns a status result set
	}
	if err := rows.Close(); err != nil {
		return 0, 0, err
	}
	var data, index int64
	err = db.QueryRowContext(ctx, `
		SELECT data_length, index_length FROM information_schema.TABLES
		WHERE table_schema = DATABASE() AND table_name = ?`, table).Scan(&data, &index)
	if err != nil {
		return 0, 0, err
	}
	return data, data + index, nil
}

func (mysql) dropTable(name string) string { return "DROP TABLE IF EXISTS " + name }

func (mysql) pgStats() bool { return false }

// insertSQL builds a multi-row INSERT for rows rows.
func insertSQL(d dialect, table string, col column, rows int) string {
	cols := []string{"id", "n", "s"}
	if col == colSerial || col == colUUIDServer {
		cols = cols[1:]
	}
	return multirow.Insert(table, cols, rows, d.placeholder)
}
