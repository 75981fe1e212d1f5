package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/examples/ent/ids"
)

// User holds the schema definition for the User entity.
type User struct {
	ent.Schema
}

// Mixin declares the key: a UserID, filled on create.
func (User) Mixin() []ent.Mixin {
	return []ent.Mixin{oncent.Mixin[ids.UserID]{}}
}

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").Unique(),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("posts", Post.Type),
		edge.To("edited", Post.Type),
	}
}
