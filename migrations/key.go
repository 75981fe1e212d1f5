package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Querier runs a query: a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// CheckKey reports whether table's id column is a unique key on its own:
// covered by the primary key or a unique index that has id as its only
// column, no expression and no WHERE clause (and, on PostgreSQL, is
// valid), as PostgreSQL's pg_index, MySQL's information_schema.STATISTICS
// and SQLite's pragma_table_info, pragma_index_list and pragma_index_info
// describe it; and whether the table holds two rows for one id. Either
// problem is an error matching [ErrConfig] that names the
// table and the SQL that fixes it. A table that does not exist passes
// (there is nothing to check); errors of the database are returned as
// they are. On PostgreSQL an unqualified name resolves through q's
// search_path.
//
// [Apply] runs it before it fills a table that already exists, and
// [github.com/once-go/once/lease/sqllease] before its first claim.
func CheckKey(ctx context.Context, q Querier, d Dialect, table string) error {
	quoted, err := QuoteTable(d, table)
	if err != nil {
		return err
	}
	var query string
	var args []any
	switch d {
	case Postgres:
		// One row when the table exists: whether a valid, unique,
		// single-column, expression-free, non-partial index is on id.
		query = `SELECT EXISTS (SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
			WHERE i.indrelid = c.oid AND i.indisunique AND i.indisvalid AND i.indnkeyatts = 1
			  AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = 'id')
			FROM pg_class c WHERE c.oid = to_regclass($1)`
		args = []any{quoted}
	case MySQL:
		query = `SELECT EXISTS (SELECT 1 FROM information_schema.STATISTICS
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0
			GROUP BY INDEX_NAME HAVING COUNT(*) = 1 AND MAX(LOWER(COLUMN_NAME)) = 'id' AND MAX(SUB_PART) IS NULL)
			FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`
		args = []any{table, table}
	case SQLite:
		// A single-column primary key is unique (an INTEGER one is the
		// rowid itself and has no entry in pragma_index_list).
		query = `SELECT EXISTS (SELECT 1 FROM pragma_table_info(?1) WHERE lower(name) = 'id' AND pk = 1
			  AND (SELECT COUNT(*) FROM pragma_table_info(?1) WHERE pk > 0) = 1)
			OR EXISTS (SELECT 1 FROM pragma_index_list(?1) AS il WHERE il."unique" AND NOT il.partial
			  AND (SELECT COUNT(*) FROM pragma_index_info(il.name)) = 1
			  AND (SELECT lower(name) FROM pragma_index_info(il.name)) = 'id')
			FROM (SELECT 1) WHERE EXISTS (SELECT 1 FROM pragma_table_info(?1))`
		args = []any{table}
	default:
		return configError("unknown dialect " + d.String())
	}
	var keyed bool
	switch err := queryRow(ctx, q, query, args, &keyed); {
	case err == sql.ErrNoRows:
		return nil // no such table
	case err != nil:
		return err
	}
	fix := "CREATE UNIQUE INDEX " + indexName(table) + " ON " + quoted + " (id)"
	id, n, err := firstDuplicate(ctx, q, quoted)
	switch {
	case err != nil:
		return err
	case n > 1:
		return configError(fmt.Sprintf("table %s holds %d rows for machine ID %d (and maybe other IDs): each row is a lease, and two processes "+
			"can hold one machine ID; stop every process using the table, delete the extra rows (keep one per id), then run %s", table, n, id, fix))
	case !keyed:
		return configError(fmt.Sprintf("table %s has no unique key on id alone (a primary key or a unique index on id, without expression or WHERE): "+
			"a second row for one id would be a second lease on that machine ID; run %s", table, fix))
	}
	return nil
}

// firstDuplicate returns the lowest id that has more than one row in the
// table (quoted) and its row count; n is 0 when there is none.
func firstDuplicate(ctx context.Context, q Querier, quoted string) (id int64, n int, err error) {
	err = queryRow(ctx, q, `SELECT id, COUNT(*) FROM `+quoted+` GROUP BY id HAVING COUNT(*) > 1 ORDER BY id LIMIT 1`, nil, &id, &n)
	if err == sql.ErrNoRows {
		return 0, 0, nil
	}
	return id, n, err
}

// queryRow runs a query on q and scans its first row into dest; no row is
// sql.ErrNoRows.
func queryRow(ctx context.Context, q Querier, query string, args []any, dest ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// indexName names the unique index CheckKey's message suggests:
// <table>_id_key (unqualified: on PostgreSQL an index takes the schema of
// its table), at most 63 bytes.
func indexName(table string) string {
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		table = table[i+1:]
	}
	const suffix = "_id_key"
	return table[:min(len(table), maxTableLen-len(suffix))] + suffix
}
