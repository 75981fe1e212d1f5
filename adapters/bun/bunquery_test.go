package oncebun

import (
	"context"
	"database/sql"
	"reflect"
	"slices"
	"testing"

	_ "github.com/glebarez/go-sqlite"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/once-go/once/once"
)

type partsModel struct {
	bun.BaseModel `bun:"table:parts"`
	ID            once.ID `bun:",pk"`
	Name          string
}

// TestQueryParts pins what the adapter reads of bun's unexported query
// fields: a bun release that moves them fails here.
func TestQueryParts(t *testing.T) {
	sqldb, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	db := bun.NewDB(sqldb, sqlitedialect.New())
	m := &partsModel{}
	zero := once.ID{}

	p := partsOf(db.NewInsert().Model(m).On("CONFLICT (name) DO UPDATE").Set("name = ?", zero).
		Where("parts.name <> ?", "x").Column("id", "name").Value("name", "?", "v"))
	if !p.ok || p.on != "CONFLICT (name) DO UPDATE" || p.ignore || p.where != 1 || len(p.set) != 1 ||
		p.set[0].query != "name = ?" || len(p.set[0].args) != 1 || p.set[0].args[0].Type() != reflect.TypeOf(zero) ||
		!slices.Equal(p.columns, []string{"id", "name"}) || !p.valueCols["name"] || !p.upsert() || !p.doUpdate() {
		t.Errorf("insert parts: %+v", p)
	}
	if p := partsOf(db.NewInsert().Model(m)); !p.ok || p.upsert() {
		t.Errorf("plain insert parts: %+v", p)
	}
	if p := partsOf(db.NewInsert().Model(m).Ignore()); !p.ok || p.on != "CONFLICT DO NOTHING" || p.doUpdate() {
		t.Errorf("Ignore parts: %+v", p)
	}
	my := bun.NewDB(sqldb, mysqldialect.New())
	if p := partsOf(my.NewInsert().Model(m).Ignore()); !p.ok || !p.ignore || p.on != "" || !p.upsert() {
		t.Errorf("MySQL Ignore parts: %+v", p)
	}
	if p := partsOf(my.NewInsert().Model(m).On("DUPLICATE KEY UPDATE")); !p.ok || !p.doUpdate() {
		t.Errorf("ON DUPLICATE KEY UPDATE parts: %+v", p)
	}
	if p := partsOf(db.NewUpdate().Model(m).OmitZero().Column("name").Set("id = ?", zero)); !p.ok || !p.omitZero ||
		!slices.Equal(p.columns, []string{"name"}) || len(p.set) != 1 {
		t.Errorf("update parts: %+v", p)
	}
	if p := partsOf(db.NewSelect().Model(m)); p.ok {
		t.Errorf("select parts: %+v", p)
	}

	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if c, ok := connOf(tx.NewInsert().Model(m), db).(*sql.Tx); !ok || c != tx.Tx {
		t.Errorf("connOf in a transaction: %T", connOf(tx.NewInsert().Model(m), db))
	}
	if c := connOf(db.NewInsert().Model(m), db); c != db {
		t.Errorf("connOf without a transaction: %T", c)
	}

	if hasHook(db, theKeyHook) {
		t.Error("hook found before WithQueryHook")
	}
	hooked := db.WithQueryHook(theKeyHook)
	if !hasHook(hooked, theKeyHook) {
		t.Error("hook not found after WithQueryHook")
	}
	if hasHook(db, theKeyHook) {
		t.Error("hook found on the db that WithQueryHook copied")
	}
}
