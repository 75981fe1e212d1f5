package oncebun_test

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	oncebun "github.com/once-go/once/adapters/bun"
	_ "github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type itemSpec struct{}

func (itemSpec) Options() once.Options { return once.Options{Prefix: "itm_"} }

type ItemID = once.Typed[itemSpec]

type Item struct {
	bun.BaseModel `bun:"table:items"`
	ID            ItemID `bun:",pk"`
	Name          string
}

func (i *Item) BeforeAppendModel(ctx context.Context, q bun.Query) error {
	return oncebun.BeforeAppendModel(ctx, q, i)
}

func Example() {
	// Fixed: machine ID 1 at once, for this one process; in production
	// a lease manager activates a factory made without Fixed.
	f, _ := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	ctx := context.Background()

	sqlDB, _ := sql.Open("sqlite", "file:oncebun-example?mode=memory&cache=shared")
	defer sqlDB.Close()
	db := bun.NewDB(sqlDB, sqlitedialect.New())
	if err := oncebun.Register(db, (*Item)(nil)); err != nil {
		panic(err)
	}
	db.NewCreateTable().Model((*Item)(nil)).Exec(ctx)

	items := []Item{{Name: "bolt"}, {Name: "nut"}}
	if _, err := db.NewInsert().Model(&items).Exec(ctx); err != nil { // one INSERT, IDs filled first
		panic(err)
	}
	n, _ := db.NewSelect().Model((*Item)(nil)).Where("id IN (?)", bun.List([]ItemID{items[0].ID, items[1].ID})).Count(ctx)
	fmt.Println(n, items[0].ID != items[1].ID, items[0].ID.String()[:4])
	// Output: 2 true itm_
}
