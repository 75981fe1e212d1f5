package oncehuma_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	oncehuma "github.com/once-go/once/adapters/huma"
	"github.com/once-go/once/once"
)

type orderSpec struct{}

func (orderSpec) Options() once.Options { return once.Options{Prefix: "ord_", Mask: true} }

// OrderID is a masked ID type.
type OrderID = once.Typed[orderSpec]

type getOrderInput struct {
	ID OrderID `path:"id"`
}

type getOrderOutput struct {
	Body struct {
		ID OrderID `json:"id"`
	}
}

// Register an ID type before the operations that use it; its path
// parameter then has the type's exact pattern.
func ExampleRegister() {
	config := huma.DefaultConfig("Orders", "1.0.0")
	if err := oncehuma.Register[OrderID](config.Components.Schemas); err != nil {
		panic(err)
	}
	api := humago.New(http.NewServeMux(), config)
	huma.Get(api, "/orders/{id}", func(_ context.Context, in *getOrderInput) (*getOrderOutput, error) {
		out := &getOrderOutput{}
		out.Body.ID = in.ID
		return out, nil
	})
	param := api.OpenAPI().Paths["/orders/{id}"].Get.Parameters[0]
	fmt.Println(param.Schema.Pattern)
	fmt.Println(param.Schema.Extensions[once.SchemaExtension])
	// Output:
	// ^ord_[A-Za-z0-9_-]{10}[AEIMQUYcgkosw048]$
	// map[format:url64 mask:true prefix:ord_]
}
