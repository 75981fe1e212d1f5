package oncebun_test

import (
	"context"
	"errors"
	"strings"
	"testing"

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
		if _, err := b.NewCreateTable().Model((*Account)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.SQL.Exec(`DROP TABLE IF EXISTS accounts`) })
		log.take()

		a := Account{Name: "ada"}
		_, err := b.NewInsert().Model(&a).Exec(ctx)
		if !errors.Is(err, oncebun.ErrConfig) || !strings.Contains(err.Error(), "oncebun.Register(db, (*Account)(nil))") {
			t.Errorf("insert without Register: %v, want oncebun.ErrConfig naming Register", err)
		}
		if stmts := log.take(); len(stmts) != 0 {
			t.Errorf("SQL ran: %q", stmts)
		}
		if !a.ID.IsZero() {
			t.Errorf("ID set: %v", a.ID)
		}
		n := Account{Name: "grace"}
		if err := oncebun.Fill(b, &n); !errors.Is(err, oncebun.ErrConfig) || !strings.Contains(err.Error(), "Register") {
			t.Errorf("Fill without Register: %v, want oncebun.ErrConfig naming Register", err)
		}

		// Registered, the table gets its bigint key and the same insert works.
		if err := oncebun.Register(b, (*Account)(nil)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.NewDropTable().Model((*Account)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.NewCreateTable().Model((*Account)(nil)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if c := at.Columns(t, db, "accounts")["id"]; c.Type != at.WantColumn(db.Dialect, at.UserID{}.Options()).Type {
			t.Errorf("id column after Register: %+v", c)
		}
		if _, err := b.NewInsert().Model(&a).Exec(ctx); err != nil || a.ID.IsZero() {
			t.Fatalf("insert after Register: %v, ID %v", err, a.ID)
		}
		var got Account
		if err := b.NewSelect().Model(&got).Where("id = ?", a.ID).Scan(ctx); err != nil || got.ID != a.ID {
			t.Errorf("read back %+v, %v", got, err)
		}
	})
}
