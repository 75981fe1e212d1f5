package migrations

import (
	"context"
	"database/sql"
)

// HolderColumn is the nullable column in which
// [github.com/once-go/once/lease/sqllease] records who holds each lease.
// [Apply] adds it to a table that lacks it; the strategy works without it,
// recording nothing.
const HolderColumn = "holder"

// addHolder adds the holder column to table unless it has one. A
// concurrent Apply on MySQL or SQLite may add it first: the ALTER then
// fails, and the column exists.
func addHolder(ctx context.Context, db execer, d Dialect, table string) error {
	if ok, err := hasColumn(ctx, db, d, table, HolderColumn); err != nil || ok {
		return err
	}
	stmts, err := statements(d, table, holderUpFile)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			if ok, cerr := hasColumn(ctx, db, d, table, HolderColumn); cerr == nil && ok && d != Postgres {
				return nil
			}
			return err
		}
	}
	return nil
}

// hasColumn reports whether table has a column named column.
func hasColumn(ctx context.Context, q Querier, d Dialect, table, column string) (bool, error) {
	var query string
	var args []any
	switch d {
	case Postgres:
		quoted, err := QuoteTable(d, table)
		if err != nil {
			return false, err
		}
		query = `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND attnum > 0 AND NOT attisdropped)`
		args = []any{quoted, column}
	case MySQL:
		query = `SELECT EXISTS (SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?)`
		args = []any{table, column}
	default:
		query = `SELECT EXISTS (SELECT 1 FROM pragma_table_info(?) WHERE lower(name) = ?)`
		args = []any{table, column}
	}
	var ok bool
	err := queryRow(ctx, q, query, args, &ok)
	if err == sql.ErrNoRows {
		err = nil
	}
	return ok, err
}
