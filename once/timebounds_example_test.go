package once_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/once-go/once/nonce"
	"github.com/once-go/once/once"
)

// orderSpec declares OrderID: prefixed, made as sortable nonces, so the
// timestamp of an order's ID is when it was placed.
type orderSpec struct{}

func (orderSpec) Options() once.Options { return once.Options{Prefix: "ord_", Nonce: nonce.Sortable} }

// OrderID is the ID type of orders.
type OrderID = once.Typed[orderSpec]

func ExampleTimeOf() {
	id := once.MustParseAs[OrderID]("ord_A4MobG9AAAE")
	at, err := once.TimeOf(id)
	fmt.Println(at.Format(time.RFC3339Nano), err)
	// Output: 2026-11-30T09:31:05.533Z <nil>
}

func ExampleMinID() {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lo, _ := once.MinID[OrderID](at) // the first ID made at or after at
	hi, _ := once.MaxID[OrderID](at) // the last ID made in at's millisecond
	fmt.Println(lo.Int64(), hi.Int64())

	_, err := once.MinID[OrderID](time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC))
	fmt.Println(errors.Is(err, once.ErrTimeRange), err)
	// Output:
	// 132271570944000000 132271570948194303
	// true once: time 2024-12-31T00:00:00Z is outside the range of IDs, 2025-01-01T00:00:00Z to 2164-05-15T07:35:11.104Z
}

func ExampleIDRange() {
	// The orders placed on 2026-03-01 (UTC): the IDs in [lo, hi].
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	lo, hi, err := once.IDRange[OrderID](day, day.AddDate(0, 0, 1))
	if err != nil {
		panic(err)
	}
	// Query arguments take the column's form (Value): a signed bigint here.
	a, _ := lo.Value()
	b, _ := hi.Value()
	fmt.Printf("SELECT ... WHERE id BETWEEN %d AND %d\n", a, b)
	// Output: SELECT ... WHERE id BETWEEN 153652455014400000 AND 154014842879999999
}
