package main

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/once-go/once/bench/internal/multirow"
	"github.com/once-go/once/bench/internal/ormkey"
	"github.com/once-go/once/once"
)

// sqlInserter writes the same rows with database/sql and no ORM: the floor
// under what an ORM adds per row. Each INSERT carries its rows as
// parameters. With an auto-increment key the keys are read back, as the
// ORMs read them (RETURNING on PostgreSQL, LastInsertId on MariaDB); once
// and UUIDv7 keys are known before the INSERT.
type sqlInserter struct {
	db       execQuerier
	postgres bool
}

// execQuerier is a *sql.DB or, with -prepare, a stmtCache over one.
type execQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func newSQL(dbName string, db *sql.DB, prepare bool) (inserter, error) {
	if prepare {
		return sqlInserter{newStmtCache(db), dbName == "postgres"}, nil
	}
	return sqlInserter{db, dbName == "postgres"}, nil
}

func (s sqlInserter) insert(ctx context.Context, key string, ps []string, batch int) error {
	if c, ok := s.db.(*stmtCache); ok {
		defer c.reset()
	}
	cols := 3
	if key == "auto" {
		cols = 2
	}
	var q string
	var qn int // rows in q
	args := make([]any, 0, cols*batch)
	for lo := 0; lo < len(ps); lo += batch {
		hi := min(lo+batch, len(ps))
		if hi-lo != qn {
			q, qn = s.query(key, hi-lo, cols), hi-lo
		}
		args = args[:0]
		for i := lo; i < hi; i++ {
			switch key {
			case "once":
				id, err := once.NewAs[once.ID]()
				if err != nil {
					return err
				}
				args = append(args, id)
			case "uuidv7":
				args = append(args, ormkey.NewV7())
			}
			args = append(args, int64(i), ps[i])
		}
		if err := s.exec(ctx, key, q, args); err != nil {
			return err
		}
	}
	return nil
}

func (s sqlInserter) exec(ctx context.Context, key, q string, args []any) error {
	if key != "auto" {
		_, err := s.db.ExecContext(ctx, q, args...)
		return err
	}
	if !s.postgres {
		res, err := s.db.ExecContext(ctx, q, args...)
		if err == nil {
			_, err = res.LastInsertId()
		}
		return err
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
	}
	return rows.Err()
}

// query is the INSERT of n rows of cols columns into key's table.
func (s sqlInserter) query(key string, n, cols int) string {
	names := []string{"id", "n", "s"}
	if cols == 2 {
		names = names[1:]
	}
	placeholder := func(int) string { return "?" }
	if s.postgres {
		placeholder = func(p int) string { return "$" + strconv.Itoa(p) }
	}
	q := multirow.Insert(tables[key], names, n, placeholder)
	if key == "auto" && s.postgres {
		q += " RETURNING id"
	}
	return q
}
