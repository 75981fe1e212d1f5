// Package ids declares the ID type of the example and the functions that
// gqlgen binds its GraphQL scalar to (gqlgen.yml: model ids.UserID).
package ids

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	oncegql "github.com/once-go/once/adapters/gqlgen"
	"github.com/once-go/once/once"
)

// readme:begin gql-scalar

// Imports: "context", "github.com/99designs/gqlgen/graphql",
// "github.com/once-go/once/adapters/gqlgen", "github.com/once-go/once/once".

// UserSpec declares the options of UserID. It is exported because gqlgen
// writes UserID out as once.Typed[ids.UserSpec] in the code it generates.
type UserSpec struct{}

func (UserSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// UserID is shown as "usr_" and 11 characters, masked; stored as a bigint.
type UserID = once.Typed[UserSpec]

// MarshalUserID and UnmarshalUserID implement the GraphQL scalar UserID.
func MarshalUserID(id UserID) graphql.ContextMarshaler { return oncegql.Marshal(id) }

func UnmarshalUserID(ctx context.Context, v any) (UserID, error) {
	return oncegql.Unmarshal[UserID](ctx, v)
}

// readme:end gql-scalar
