package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/examples/ent/ids"
)

// Tag holds the schema definition for the Tag entity: its key is stored as
// text.
type Tag struct {
	ent.Schema
}

// Annotations give the table MySQL's usual case-insensitive collation
// (MySQL/MariaDB only): the key column's type keeps it exact.
func (Tag) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Charset: "utf8mb4", Collation: "utf8mb4_general_ci"}}
}

// Mixin declares the key: a TagID, filled on create.
func (Tag) Mixin() []ent.Mixin {
	return []ent.Mixin{oncent.Mixin[ids.TagID]{}}
}

// Fields of the Tag.
func (Tag) Fields() []ent.Field {
	return []ent.Field{
		field.String("name"),
	}
}

// Edges of the Tag: many-to-many with posts, through a join table keyed by
// both IDs.
func (Tag) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("posts", Post.Type).Ref("tags"),
	}
}
