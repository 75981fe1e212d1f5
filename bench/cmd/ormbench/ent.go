package main

import (
	"context"
	"database/sql"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/once-go/once/bench/internal/entbench"
	_ "github.com/once-go/once/bench/internal/entbench/runtime" // the schema's hooks and defaults
)

type entInserter struct {
	c     *entbench.Client
	cache *stmtCache // with -prepare
}

// newEnt opens the generated ent client on sqlDB. Once keys come from the
// oncent mixin's hook (declared in the schema), UUIDv7 keys from the
// schema's Default func. With prepare, ent's driver runs its statements
// through a stmtCache (ent has no statement cache of its own; the inserts
// here need no transaction, which such a driver cannot begin).
func newEnt(dbName string, sqlDB *sql.DB, prepare bool) (inserter, error) {
	d := dialect.Postgres
	if dbName == "mysql" {
		d = dialect.MySQL
	}
	if prepare {
		c := newStmtCache(sqlDB)
		drv := entsql.NewDriver(d, entsql.Conn{ExecQuerier: c})
		return entInserter{entbench.NewClient(entbench.Driver(drv)), c}, nil
	}
	return entInserter{c: entbench.NewClient(entbench.Driver(entsql.OpenDB(d, sqlDB)))}, nil
}

func (e entInserter) insert(ctx context.Context, key string, ps []string, batch int) error {
	if e.cache != nil {
		defer e.cache.reset()
	}
	for lo := 0; lo < len(ps); lo += batch {
		hi := min(lo+batch, len(ps))
		var err error
		switch key {
		case "once":
			err = e.onceRows(ctx, ps, lo, hi)
		case "auto":
			err = e.autoRows(ctx, ps, lo, hi)
		default:
			err = e.uuidRows(ctx, ps, lo, hi)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// onceRows, autoRows and uuidRows insert rows lo..hi-1 with one Create for
// a single row, with CreateBulk otherwise.
func (e entInserter) onceRows(ctx context.Context, ps []string, lo, hi int) error {
	if hi-lo == 1 {
		return e.c.OnceRow.Create().SetN(int64(lo)).SetS(ps[lo]).Exec(ctx)
	}
	bs := make([]*entbench.OnceRowCreate, 0, hi-lo)
	for i := lo; i < hi; i++ {
		bs = append(bs, e.c.OnceRow.Create().SetN(int64(i)).SetS(ps[i]))
	}
	return e.c.OnceRow.CreateBulk(bs...).Exec(ctx)
}

func (e entInserter) autoRows(ctx context.Context, ps []string, lo, hi int) error {
	if hi-lo == 1 {
		return e.c.AutoRow.Create().SetN(int64(lo)).SetS(ps[lo]).Exec(ctx)
	}
	bs := make([]*entbench.AutoRowCreate, 0, hi-lo)
	for i := lo; i < hi; i++ {
		bs = append(bs, e.c.AutoRow.Create().SetN(int64(i)).SetS(ps[i]))
	}
	return e.c.AutoRow.CreateBulk(bs...).Exec(ctx)
}

func (e entInserter) uuidRows(ctx context.Context, ps []string, lo, hi int) error {
	if hi-lo == 1 {
		return e.c.UUIDRow.Create().SetN(int64(lo)).SetS(ps[lo]).Exec(ctx)
	}
	bs := make([]*entbench.UUIDRowCreate, 0, hi-lo)
	for i := lo; i < hi; i++ {
		bs = append(bs, e.c.UUIDRow.Create().SetN(int64(i)).SetS(ps[i]))
	}
	return e.c.UUIDRow.CreateBulk(bs...).Exec(ctx)
}
