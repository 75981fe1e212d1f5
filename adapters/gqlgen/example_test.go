package oncegql_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	oncegql "github.com/once-go/once/adapters/gqlgen"
	"github.com/once-go/once/once"
)

type orderSpec struct{}

func (orderSpec) Options() once.Options { return once.Options{Prefix: "ord_"} }

// OrderID is the ID type of orders.
type OrderID = once.Typed[orderSpec]

// MarshalOrderID and UnmarshalOrderID are what gqlgen.yml's
// "model: <package>.OrderID" binds the OrderID scalar to.
func MarshalOrderID(id OrderID) graphql.ContextMarshaler { return oncegql.Marshal(id) }

func UnmarshalOrderID(ctx context.Context, v any) (OrderID, error) {
	return oncegql.Unmarshal[OrderID](ctx, v)
}

func Example() {
	ctx := context.Background()
	id, err := UnmarshalOrderID(ctx, "ord_zAjhfZyAAAE")
	fmt.Println(id.Uint64(), err)

	var out bytes.Buffer
	if err := MarshalOrderID(id).MarshalGQLContext(ctx, &out); err != nil {
		panic(err)
	}
	fmt.Println(out.String())

	_, err = UnmarshalOrderID(ctx, "usr_zAjhfZyAAAE")
	fmt.Println(err)
	// Output:
	// 14702248913163780097 <nil>
	// "ord_zAjhfZyAAAE"
	// once: invalid ID "usr_zAjhfZyAAAE": missing prefix "ord_"
}
