package main

import (
	"context"
	"database/sql"
	"time"

	"github.com/once-go/once/migrations"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// The time bounds of docs/ids.md and the SQL functions of docs/sql.md;
// their test (timebounds_test.go) runs them.

// orderSpec declares OrderID, made as sortable nonces: the time inside an
// order's ID is when it was placed.
type orderSpec struct{}

func (orderSpec) Options() once.Options { return once.Options{Prefix: "ord_", Nonce: nonce.Sortable} }

// OrderID is the ID of table orders (id bigint primary key).
type OrderID = once.Typed[orderSpec]

// ordersOn returns the orders placed on day (UTC) in ID order, with the
// time each was placed.
func ordersOn(ctx context.Context, db *sql.DB, day time.Time) (ids []OrderID, placed []time.Time, err error) {
	// readme:begin time-bounds
	// Imports: "github.com/once-go/once/once".
	// OrderID is made as sortable nonces (Options{Nonce: nonce.Sortable}).
	lo, hi, err := once.IDRange[OrderID](day, day.AddDate(0, 0, 1)) // [from, to)
	if err != nil {
		return nil, nil, err // once.ErrTimeRange: before 2025 or after 2164, or from >= to
	}
	rows, err := db.QueryContext(ctx, `SELECT id FROM orders WHERE id BETWEEN ? AND ? ORDER BY id`, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id OrderID
		if err := rows.Scan(&id); err != nil {
			return nil, nil, err
		}
		at, err := once.TimeOf(id) // when the order was placed, to the millisecond
		if err != nil {
			return nil, nil, err
		}
		ids, placed = append(ids, id), append(placed, at)
	}
	// readme:end time-bounds
	return ids, placed, rows.Err()
}

// installSQLFunctions creates the SQL functions on PostgreSQL.
func installSQLFunctions(ctx context.Context, db *sql.DB) error {
	// readme:begin sql-install
	// Imports: "github.com/once-go/once/migrations".
	// At startup, next to migrations.Apply; idempotent, safe from every replica.
	if err := migrations.InstallFunctions(ctx, db, migrations.Postgres); err != nil {
		return err
	}
	// readme:end sql-install
	return nil
}
