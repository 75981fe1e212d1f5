package oncebun

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	_ "github.com/glebarez/go-sqlite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	defer sqldb.Close()
	db := bun.NewDB(sqldb, sqlitedialect.New())
	m := &partsModel{}
	zero := once.ID{}

	p := partsOf(db.NewInsert().Model(m).On("CONFLICT (name) DO UPDATE").Set("name = ?", zero).
		Where("parts.name <> ?", "x").Column("id", "name").Value("name", "?", "v"))
	assert.True(t, p.ok, "insert parts: %+v", p)
	assert.Equal(t, "CONFLICT (name) DO UPDATE", p.on, "insert parts: on")
	assert.False(t, p.ignore, "insert parts: ignore")
	assert.Equal(t, 1, p.where, "insert parts: where")
	if assert.Len(t, p.set, 1, "insert parts: set") {
		assert.Equal(t, "name = ?", p.set[0].query, "insert parts: set query")
		if assert.Len(t, p.set[0].args, 1, "insert parts: set args") {
			assert.Equal(t, reflect.TypeOf(zero), p.set[0].args[0].Type(), "insert parts: set arg type")
		}
	}
	assert.Equal(t, []string{"id", "name"}, p.columns, "insert parts: columns")
	assert.True(t, p.valueCols["name"], "insert parts: valueCols %v", p.valueCols)
	assert.True(t, p.upsert(), "insert parts: upsert() %+v", p)
	assert.True(t, p.doUpdate(), "insert parts: doUpdate() %+v", p)
	if p := partsOf(db.NewInsert().Model(m)); assert.True(t, p.ok, "plain insert parts: %+v", p) {
		assert.False(t, p.upsert(), "plain insert parts: upsert() %+v", p)
	}
	if p := partsOf(db.NewInsert().Model(m).Ignore()); assert.True(t, p.ok, "Ignore parts: %+v", p) {
		assert.Equal(t, "CONFLICT DO NOTHING", p.on, "Ignore parts: on")
		assert.False(t, p.doUpdate(), "Ignore parts: doUpdate() %+v", p)
	}
	my := bun.NewDB(sqldb, mysqldialect.New())
	if p := partsOf(my.NewInsert().Model(m).Ignore()); assert.True(t, p.ok, "MySQL Ignore parts: %+v", p) {
		assert.True(t, p.ignore, "MySQL Ignore parts: ignore")
		assert.Empty(t, p.on, "MySQL Ignore parts: on")
		assert.True(t, p.upsert(), "MySQL Ignore parts: upsert() %+v", p)
	}
	if p := partsOf(my.NewInsert().Model(m).On("DUPLICATE KEY UPDATE")); assert.True(t, p.ok, "ON DUPLICATE KEY UPDATE parts: %+v", p) {
		assert.True(t, p.doUpdate(), "ON DUPLICATE KEY UPDATE parts: doUpdate() %+v", p)
	}
	if p := partsOf(db.NewUpdate().Model(m).OmitZero().Column("name").Set("id = ?", zero)); assert.True(t, p.ok, "update parts: %+v", p) {
		assert.True(t, p.omitZero, "update parts: omitZero")
		assert.Equal(t, []string{"name"}, p.columns, "update parts: columns")
		assert.Len(t, p.set, 1, "update parts: set")
	}
	p = partsOf(db.NewSelect().Model(m))
	assert.False(t, p.ok, "select parts: %+v", p)

	tx, err := db.BeginTx(context.Background(), nil)
	require.NoError(t, err)
	defer tx.Rollback()
	c, ok := connOf(tx.NewInsert().Model(m), db).(*sql.Tx)
	assert.True(t, ok && c == tx.Tx, "connOf in a transaction: %T", connOf(tx.NewInsert().Model(m), db))
	assert.Same(t, db, connOf(db.NewInsert().Model(m), db), "connOf without a transaction")

	assert.False(t, hasHook(db, theKeyHook), "hook found before WithQueryHook")
	hooked := db.WithQueryHook(theKeyHook)
	assert.True(t, hasHook(hooked, theKeyHook), "hook not found after WithQueryHook")
	assert.False(t, hasHook(db, theKeyHook), "hook found on the db that WithQueryHook copied")
}
