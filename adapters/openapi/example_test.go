package onceopenapi_test

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3gen"

	onceopenapi "github.com/once-go/once/adapters/openapi"
	"github.com/once-go/once/once"
)

type invoiceSpec struct{}

func (invoiceSpec) Options() once.Options {
	return once.Options{Prefix: "inv_", Format: once.Hex32, Mask: true}
}

// InvoiceID is a masked hex32 ID type.
type InvoiceID = once.Typed[invoiceSpec]

// Generate the schema of a Go type whose fields are IDs.
func ExampleCustomizer() {
	type Invoice struct {
		ID    InvoiceID `json:"id"`
		Total int       `json:"total"`
	}
	ref, err := openapi3gen.NewSchemaRefForValue(&Invoice{}, nil, openapi3gen.SchemaCustomizer(onceopenapi.Customizer))
	if err != nil {
		panic(err)
	}
	id := ref.Value.Properties["id"].Value
	fmt.Println(id.Pattern, id.MinLength, *id.MaxLength)
	fmt.Println(id.Extensions[once.SchemaExtension])
	// Output:
	// ^inv_[0-9a-v]{12}[02468acegikmoqsu]$ 17 17
	// map[format:hex32 mask:true prefix:inv_]
}
