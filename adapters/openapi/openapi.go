// Package onceopenapi puts the exact JSON Schema of once IDs into
// kin-openapi documents (github.com/getkin/kin-openapi): [Customizer] for
// schemas that openapi3gen generates from Go types, [Schema] for documents
// built by hand. The schema is once.SchemaOf's: type string, format
// "once-id", a pattern that accepts exactly the spellings the type parses,
// lengths, an example and the x-once-id extension (prefix, format, mask).
//
//	ref, err := openapi3gen.NewSchemaRefForValue(&User{}, nil,
//		openapi3gen.SchemaCustomizer(onceopenapi.Customizer))
//
// Without it openapi3gen describes an ID type as an empty object schema.
package onceopenapi

import (
	"encoding"
	"fmt"
	"reflect"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/once-go/once/once"
)

var (
	kindType            = reflect.TypeFor[once.Spec]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Customizer is an openapi3gen.SchemaCustomizerFn (pass it with
// openapi3gen.SchemaCustomizer). For an ID type (once.ID, a once.Typed, or
// a type that embeds one: a type with an Options() once.Options method that
// marshals and unmarshals text) it replaces the generated schema with the
// type's, keeping its nullable flag (set for *T fields); other types it
// leaves alone. The error of an ID type with invalid options matches
// once.ErrConfig and names the type.
func Customizer(_ string, t reflect.Type, _ reflect.StructTag, schema *openapi3.Schema) error {
	if !isID(t) {
		return nil
	}
	s, err := once.SchemaOf(reflect.Zero(t).Interface().(once.Spec))
	if err != nil {
		return fmt.Errorf("onceopenapi: %w", err)
	}
	nullable := schema.Nullable
	*schema = *Schema(s)
	schema.Nullable = nullable
	return nil
}

// isID reports whether t is an ID type.
func isID(t reflect.Type) bool {
	return t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
		t.Implements(kindType) && t.Implements(textMarshalerType) &&
		reflect.PointerTo(t).Implements(textUnmarshalerType)
}

// Schema returns s as a kin-openapi schema, its example as "example".
func Schema(s once.Schema) *openapi3.Schema {
	maxLen := uint64(s.MaxLength)
	return &openapi3.Schema{
		Type:        &openapi3.Types{openapi3.TypeString},
		Format:      once.SchemaFormat,
		Description: s.Description,
		Pattern:     s.Pattern,
		MinLength:   uint64(s.MinLength),
		MaxLength:   &maxLen,
		Example:     s.Example,
		Extensions:  map[string]any{once.SchemaExtension: s.Extension()},
	}
}
