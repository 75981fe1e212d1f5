// Package schema declares the three tables of the ORM benchmark, one per key
// type, each with the same payload columns n and s. cmd/ormbench creates the
// tables itself (the same DDL for every ORM); ent's migration is not used.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/bench/internal/ormkey"
	"github.com/once-go/once/once"
)

// OnceRow has a once.ID key declared as the README tells ent users to:
// oncent.Mixin, whose hook fills it before the insert (it draws once.NewAs
// and can fail, which a Default func cannot).
type OnceRow struct{ ent.Schema }

// Mixin of OnceRow: the key and its hook.
func (OnceRow) Mixin() []ent.Mixin { return []ent.Mixin{oncent.Mixin[once.ID]{}} }

// Annotations names the table.
func (OnceRow) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "once_rows"}}
}

// Fields of OnceRow.
func (OnceRow) Fields() []ent.Field { return payload() }

// AutoRow has ent's default key: an auto-increment integer assigned by the
// database.
type AutoRow struct{ ent.Schema }

// Annotations names the table.
func (AutoRow) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "auto_rows"}}
}

// Fields of AutoRow.
func (AutoRow) Fields() []ent.Field {
	return append([]ent.Field{field.Int64("id")}, payload()...)
}

// UUIDRow has a UUIDv7 key made in Go by a Default func.
type UUIDRow struct{ ent.Schema }

// Annotations names the table.
func (UUIDRow) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "uuid_rows"}}
}

// Fields of UUIDRow.
func (UUIDRow) Fields() []ent.Field {
	return append([]ent.Field{
		field.Other("id", ormkey.UUID{}).
			SchemaType(map[string]string{dialect.Postgres: "uuid", dialect.MySQL: "binary(16)"}).
			Default(ormkey.NewV7).
			Immutable(),
	}, payload()...)
}

func payload() []ent.Field {
	return []ent.Field{field.Int64("n"), field.String("s").MaxLen(32)}
}
