package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/examples/ent/ids"
)

// Post holds the schema definition for the Post entity.
type Post struct {
	ent.Schema
}

// Mixin declares the key: a PostID, filled on create.
func (Post) Mixin() []ent.Mixin {
	return []ent.Mixin{oncent.Mixin[ids.PostID]{}}
}

// Fields of the Post: the foreign keys are UserIDs, the editor's nullable.
func (Post) Fields() []ent.Field {
	return []ent.Field{
		field.String("title"),
		oncent.Field[ids.UserID]("author_id"),
		oncent.Field[ids.UserID]("editor_id").Optional(),
	}
}

// Edges of the Post.
func (Post) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("author", User.Type).Ref("posts").Field("author_id").Unique().Required(),
		edge.From("editor", User.Type).Ref("edited").Field("editor_id").Unique(),
		edge.To("tags", Tag.Type),
	}
}
