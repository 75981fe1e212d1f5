// Package oncegql maps once IDs to GraphQL custom scalars in gqlgen
// (github.com/99designs/gqlgen). An ID is a scalar spelled as a string, its
// text spelling ("usr_zAjhfZyAAAE"); input is parsed as strictly as
// once.ParseAs: a wrong prefix, a non-canonical spelling or a value that is
// not a string is a GraphQL error, never a panic.
//
// gqlgen binds a scalar to a pair of functions named after the model
// (function-based marshalers take precedence over the type of that name).
// Declare them beside the ID type, one pair per type. gqlgen writes the
// alias out (once.Typed[ids.UserSpec]) in the code it generates, so the kind
// type must be exported:
//
//	type UserSpec struct{}
//
//	func (UserSpec) Options() once.Options { return once.Options{Prefix: "usr_"} }
//
//	type UserID = once.Typed[UserSpec]
//
//	func MarshalUserID(id UserID) graphql.ContextMarshaler { return oncegql.Marshal(id) }
//
//	func UnmarshalUserID(ctx context.Context, v any) (UserID, error) {
//		return oncegql.Unmarshal[UserID](ctx, v)
//	}
//
// and point gqlgen.yml at them:
//
//	models:
//	  UserID:
//	    model: example.com/app/ids.UserID
//
// with the scalar declared in the schema: scalar UserID.
package oncegql

import (
	"context"
	"encoding"
	"fmt"
	"io"
	"reflect"

	"github.com/99designs/gqlgen/graphql"

	"github.com/once-go/once/once"
)

// Marshal returns the GraphQL value of id: its text spelling as a string.
// The zero ID ("no ID") has none: writing it is an error (gqlgen reports it
// and writes null), as is an ID of a type that cannot spell it (invalid
// options, a masked type without a generator). Nullable fields are *T,
// whose nil gqlgen writes as null without calling Marshal.
func Marshal[T once.IDType](id T) graphql.ContextMarshaler {
	return graphql.ContextWriterFunc(func(_ context.Context, w io.Writer) error {
		var zero T
		if id == zero {
			return fmt.Errorf("oncegql: the zero %s (no ID) has no GraphQL value; a field that may hold none takes *%[1]s: %w",
				typeName[T](), once.ErrInvalid)
		}
		b, err := any(id).(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return err
		}
		graphql.MarshalString(string(b)).MarshalGQL(w)
		return nil
	})
}

// Unmarshal parses the GraphQL input value v as an ID of type T: a string
// spelled as once.ParseAs[T] accepts it. Anything else, "" and null
// included, is an error matching once.ErrInvalid (or the once.ErrConfig,
// once.ErrNoGenerator error of the type).
func Unmarshal[T once.IDType](_ context.Context, v any) (T, error) {
	s, ok := v.(string)
	if !ok {
		var zero T
		return zero, fmt.Errorf("oncegql: %s wants a string, not %s: %w", typeName[T](), goType(v), once.ErrInvalid)
	}
	return once.ParseAs[T](s)
}

// typeName names T in messages.
func typeName[T any]() string { return reflect.TypeFor[T]().String() }

// goType names the Go type of an input value.
func goType(v any) string {
	if v == nil {
		return "null"
	}
	return reflect.TypeOf(v).String()
}
