package oncebun_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
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

// A handler that decodes a request body into the model hands the key to
// the client; the insert refuses it. An import keeps its keys by opting
// in for its inserts.
func ExampleWithPresetIDs() {
	f, _ := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	ctx := context.Background()

	sqlDB, _ := sql.Open("sqlite", "file:oncebun-preset-example?mode=memory&cache=shared")
	defer sqlDB.Close()
	db := bun.NewDB(sqlDB, sqlitedialect.New())
	if err := oncebun.Register(db, (*Item)(nil)); err != nil {
		panic(err)
	}
	db.NewCreateTable().Model((*Item)(nil)).Exec(ctx)

	var it Item
	json.Unmarshal([]byte(`{"id":"itm_AAAAAAAAAAE","name":"gift"}`), &it)
	_, err := db.NewInsert().Model(&it).Exec(ctx)
	fmt.Println(errors.Is(err, oncebun.ErrPresetID), errors.Is(err, once.ErrInvalid))

	imported := []Item{{ID: ItemID(once.FromUint64(1)), Name: "bolt"}, {Name: "nut"}}
	_, err = db.NewInsert().Model(&imported).Exec(oncebun.WithPresetIDs(ctx))
	fmt.Println(err, imported[0].ID.Uint64(), imported[1].ID.IsZero())
	// Output:
	// true true
	// <nil> 1 false
}
