// Package oncehuma makes huma describe and validate once IDs exactly: in
// the OpenAPI document an ID type is the JSON Schema of once.SchemaOf (type
// string, format "once-id", a pattern that accepts exactly the spellings the
// type parses, lengths, an example and the x-once-id extension with its
// prefix, format and mask), and huma checks request bodies and parameters
// against that pattern before a handler runs.
//
// Register each ID type on the API's registry before adding the operations
// that use it:
//
//	config := huma.DefaultConfig("Users", "1.0.0")
//	if err := oncehuma.Register[UserID](config.Components.Schemas); err != nil {
//		return err
//	}
//	api := humago.New(mux, config)
//
// Without it huma sees a type with UnmarshalText and documents it as a bare
// {"type": "string"}.
package oncehuma

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/once-go/once/once"
)

// ErrNilRegistry is returned by Register for a nil registry.
var ErrNilRegistry = errors.New("oncehuma: nil registry (pass config.Components.Schemas or api.OpenAPI().Components.Schemas)")

// Register makes the schemas that r creates for fields, parameters and
// elements of ID type T (also *T and []T) the schema of T. It returns the
// [once.ErrConfig] error of T's options, or [ErrNilRegistry], and then
// registers nothing.
func Register[T once.IDType](r huma.Registry) error {
	if r == nil {
		return ErrNilRegistry
	}
	var id T
	if _, err := once.SchemaOf(id); err != nil {
		return fmt.Errorf("oncehuma: %w", err)
	}
	r.RegisterTypeAlias(reflect.TypeFor[T](), reflect.TypeFor[schemaOf[T]]())
	return nil
}

// schemaOf is what Register has huma use in place of T: a type whose
// SchemaProvider gives T's schema.
type schemaOf[T once.IDType] struct{}

// Schema implements huma.SchemaProvider (Register checked the options).
func (schemaOf[T]) Schema(huma.Registry) *huma.Schema {
	var id T
	s, _ := once.SchemaOf(id)
	return Schema(s)
}

// Schema returns s as a huma schema. Description and PatternDescription
// carry s.Description, so that huma's validation errors say in words what
// the pattern wants.
func Schema(s once.Schema) *huma.Schema {
	minLen, maxLen := s.MinLength, s.MaxLength
	return &huma.Schema{
		Type:               huma.TypeString,
		Format:             once.SchemaFormat,
		Description:        s.Description,
		Pattern:            s.Pattern,
		PatternDescription: s.Description,
		MinLength:          &minLen,
		MaxLength:          &maxLen,
		Examples:           []any{s.Example},
		Extensions:         map[string]any{once.SchemaExtension: s.Extension()},
	}
}
