package main

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"

	oncebun "github.com/once-go/once/adapters/bun"
	"github.com/once-go/once/bench/internal/ormkey"
	"github.com/once-go/once/once"
)

type bunOnce struct {
	bun.BaseModel `bun:"table:once_rows"`
	ID            once.ID `bun:",pk"` // filled by oncebun before the INSERT is built
	N             int64   `bun:",notnull"`
	S             string  `bun:",notnull"`
}

func (r *bunOnce) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, r)
}

type bunAuto struct {
	bun.BaseModel `bun:"table:auto_rows"`
	ID            int64  `bun:",pk,autoincrement"` // read back after the INSERT
	N             int64  `bun:",notnull"`
	S             string `bun:",notnull"`
}

type bunUUID struct {
	bun.BaseModel `bun:"table:uuid_rows"`
	ID            ormkey.UUID `bun:",pk"`
	N             int64       `bun:",notnull"`
	S             string      `bun:",notnull"`
}

// BeforeAppendModel gives a new row its UUIDv7, as oncebun does for once
// IDs.
func (r *bunUUID) BeforeAppendModel(_ context.Context, q bun.Query) error {
	if _, ok := q.(*bun.InsertQuery); ok && r.ID.IsZero() {
		r.ID = ormkey.NewV7()
	}
	return nil
}

type bunInserter struct{ db *bun.DB }

// newBun opens bun on sqlDB with the oncebun plugin. bun writes the values
// into the SQL text and sends no parameters, so prepare changes nothing
// for it.
func newBun(dbName string, sqlDB *sql.DB, prepare bool) (inserter, error) {
	var d schema.Dialect = pgdialect.New()
	if dbName == "mysql" {
		d = mysqldialect.New()
	}
	db := bun.NewDB(sqlDB, d)
	if err := oncebun.Register(db, (*bunOnce)(nil)); err != nil {
		return nil, err
	}
	return bunInserter{db}, nil
}

func (b bunInserter) insert(ctx context.Context, key string, ps []string, batch int) error {
	switch key {
	case "once":
		return bunInsert(ctx, b.db, ps, batch, func(i int) bunOnce { return bunOnce{N: int64(i), S: ps[i]} })
	case "auto":
		return bunInsert(ctx, b.db, ps, batch, func(i int) bunAuto { return bunAuto{N: int64(i), S: ps[i]} })
	default:
		return bunInsert(ctx, b.db, ps, batch, func(i int) bunUUID { return bunUUID{N: int64(i), S: ps[i]} })
	}
}

// bunInsert inserts one struct per query when batch is 1, otherwise a new
// slice of batch structs per query.
func bunInsert[T any](ctx context.Context, db *bun.DB, ps []string, batch int, row func(int) T) error {
	if batch == 1 {
		for i := range ps {
			r := row(i)
			if _, err := db.NewInsert().Model(&r).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	for lo := 0; lo < len(ps); lo += batch {
		rows := make([]T, 0, min(batch, len(ps)-lo))
		for i := lo; i < lo+cap(rows); i++ {
			rows = append(rows, row(i))
		}
		if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
