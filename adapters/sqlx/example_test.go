package oncesqlx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	oncesqlx "github.com/once-go/once/adapters/sqlx"
	_ "github.com/once-go/once/internal/sqlitedrv"
	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

type orderSpec struct{}

func (orderSpec) Options() once.Options { return once.Options{Prefix: "ord_"} }

type OrderID = once.Typed[orderSpec]

type Order struct {
	ID   OrderID `db:"id"`
	Item string  `db:"item"`
}

func Example() {
	// Fixed: machine ID 1 at once, for this one process; in production
	// a lease manager activates a factory made without Fixed.
	f, _ := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	ctx := context.Background()

	db := sqlx.MustOpen("sqlite", "file:oncesqlx-example?mode=memory&cache=shared")
	defer db.Close()
	idType, err := oncesqlx.ColumnType(db, OrderID{}) // "integer" on SQLite, "bigint" elsewhere
	if err != nil {
		panic(err)
	}
	db.MustExec(`CREATE TABLE orders (id ` + idType + ` PRIMARY KEY, item text)`)

	orders := []Order{{Item: "tea"}, {Item: "cake"}}
	if _, err := oncesqlx.NamedExec(ctx, db, `INSERT INTO orders (id, item) VALUES (:id, :item)`, orders); err != nil {
		panic(err)
	}
	q, args, _ := sqlx.In(`SELECT id, item FROM orders WHERE id IN (?) ORDER BY item`, []OrderID{orders[0].ID, orders[1].ID})
	var got []Order
	db.SelectContext(ctx, &got, db.Rebind(q), args...)
	fmt.Println(len(got), got[0].Item, got[0].ID == orders[1].ID)
	// Output: 2 cake true
}

// A handler that decodes a request body into the struct hands the key to
// the client; NamedExec refuses it. An import keeps its keys by opting in.
func ExampleWithPresetIDs() {
	f, _ := nonce.New(nonce.Config{Fixed: true, MachineID: 1})
	once.DefaultBinding().Set(f)
	defer once.DefaultBinding().Set(nil)
	ctx := context.Background()

	db := sqlx.MustOpen("sqlite", "file:oncesqlx-preset-example?mode=memory&cache=shared")
	defer db.Close()
	db.MustExec(`CREATE TABLE orders (id integer PRIMARY KEY, item text)`)
	const insert = `INSERT INTO orders (id, item) VALUES (:id, :item)`

	var o Order
	json.Unmarshal([]byte(`{"ID":"ord_AAAAAAAAAAE","Item":"free lunch"}`), &o)
	_, err := oncesqlx.NamedExec(ctx, db, insert, &o)
	fmt.Println(errors.Is(err, oncesqlx.ErrPresetID), errors.Is(err, once.ErrInvalid))

	imported := []Order{{ID: OrderID(once.FromUint64(1)), Item: "tea"}, {Item: "cake"}}
	_, err = oncesqlx.NamedExec(oncesqlx.WithPresetIDs(ctx), db, insert, imported)
	fmt.Println(err, imported[0].ID.Uint64(), imported[1].ID.IsZero())
	// Output:
	// true true
	// <nil> 1 false
}
