package oncebun_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	oncebun "github.com/once-go/once/adapters/bun"
	at "github.com/once-go/once/adapters/internal/adaptertest"
	"github.com/once-go/once/adapters/internal/idfield"
)

// Account is a model that no test registers.
type Account struct {
	bun.BaseModel `bun:"table:accounts"`
	ID            at.UserID `bun:",pk"`
	Name          string
}

func (a *Account) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, a)
}

// TestWithoutRegister: an insert of a model that Register has not prepared
// fails before any SQL runs, with an error that names Register, on every
// database; Fill says the same.
func TestWithoutRegister(t *testing.T) {
	at.Leased(t)
	at.Each(t, func(t *testing.T, db at.DB) {
		var b *bun.DB
		switch db.Dialect {
		case idfield.Postgres:
			b = bun.NewDB(db.SQL, pgdialect.New())
		case idfield.MySQL:
			b = bun.NewDB(db.SQL, mysqldialect.New())
		case idfield.SQLite:
			b = bun.NewDB(db.SQL, sqlitedialect.New())
		}
		log := &queryLog{}
		b = b.WithQueryHook(log)
		ctx := context.Background()
		// bun declares the table from the unprepared model.
		_, err := b.NewCreateTable().Model((*Account)(nil)).Exec(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { db.SQL.Exec(`DROP TABLE IF EXISTS accounts`) })
		log.take()

		a := Account{Name: "ada"}
		_, err = b.NewInsert().Model(&a).Exec(ctx)
		if assert.ErrorIs(t, err, oncebun.ErrConfig, "insert without Register") {
			assert.Contains(t, err.Error(), "oncebun.Register(db, (*Account)(nil))", "insert without Register: the error names Register")
		}
		assert.Empty(t, log.take(), "SQL ran")
		assert.True(t, a.ID.IsZero(), "ID set: %v", a.ID)
		n := Account{Name: "grace"}
		if err := oncebun.Fill(ctx, b, &n); assert.ErrorIs(t, err, oncebun.ErrConfig, "Fill without Register") {
			assert.Contains(t, err.Error(), "Register", "Fill without Register: the error names Register")
		}

		// Registered, the table gets its bigint key and the same insert works.
		require.NoError(t, oncebun.Register(b, (*Account)(nil)))
		_, err = b.NewDropTable().Model((*Account)(nil)).Exec(ctx)
		require.NoError(t, err)
		_, err = b.NewCreateTable().Model((*Account)(nil)).Exec(ctx)
		require.NoError(t, err)
		c := at.Columns(t, db, "accounts")["id"]
		assert.Equal(t, at.WantColumn(db.Dialect, at.UserID{}.Options()).Type, c.Type, "id column after Register: %+v", c)
		_, err = b.NewInsert().Model(&a).Exec(ctx)
		require.NoError(t, err, "insert after Register")
		require.False(t, a.ID.IsZero(), "insert after Register: ID")
		var got Account
		if assert.NoError(t, b.NewSelect().Model(&got).Where("id = ?", a.ID).Scan(ctx), "read back") {
			assert.Equal(t, a.ID, got.ID, "read back %+v", got)
		}
	})
}
