// Package oncent lets ent schemas use once IDs as primary and foreign keys.
//
// An entity's key is declared with [Mixin], which adds the "id" field and the
// hook that fills it:
//
//	func (User) Mixin() []ent.Mixin {
//		return []ent.Mixin{oncent.Mixin[ids.UserID]{}}
//	}
//
//	func (Post) Fields() []ent.Field {
//		return []ent.Field{
//			oncent.Field[ids.UserID]("author_id"),
//			oncent.Field[ids.UserID]("editor_id").Optional(), // *ids.UserID, NULL when nil
//		}
//	}
//
// Foreign keys are fields of the referenced ID type named in the edge
// (edge.From("author", User.Type).Ref("posts").Field("author_id")); an
// Optional one is nullable, a *T in Go.
//
// # Filling
//
// ent default functions return one value, so they cannot report a
// generator's error. [Hook] runs on every create, single or bulk: it sets a
// new ID (once.NewAs) when the mutation holds none and returns the
// generator's error otherwise (no lease: nonce.ErrDisabled; no generator:
// once.ErrNoGenerator), so that the create fails before any SQL runs. The key
// field's default is the zero ID, which has no database value: a create that
// bypasses the hook fails with once.ErrInvalid instead of storing 0 or
// letting the database pick a key. The hook also refuses, before any SQL
// runs, a create or update that sets an ID field to the zero ID (what
// encoding/json makes of "" for a *T), with an error matching
// once.ErrInvalid that names the entity and field.
//
// # Upserts and key queries
//
// With ent's sql/upsert feature, UpsertOne.ID reads the key back with
// RETURNING on PostgreSQL and SQLite (the existing row's key after a
// conflict; sql.ErrNoRows after DoNothing skips the row), and
// UpdateNewValues leaves the key alone; on MySQL and MariaDB ent reads no
// non-integer key back, and UpsertOne.ID fails naming itself. ent's
// generated IDs, FirstID, OnlyID and Exist fail for struct key types
// ("sql/scan: missing struct field for column: id", ent #4139, #4348):
// use Count for Exist and the keys of Select(FieldID).All for IDs.
//
// # Column types
//
// Every field gets the column type of its ID type's DB format per dialect:
//
//	DB format          PostgreSQL    MySQL/MariaDB     SQLite
//	signed             bigint        bigint            integer
//	unsigned           numeric(20)   bigint unsigned   text
//	raw                bytea         binary(8+p)       blob
//	url64, hex, hex32  varchar(n+p)  varbinary(n+p)    text
//
// where n is the text length (11, 16, 13) and p the prefix length when the
// prefix is persisted. Text keys compare exactly (url64 is case
// sensitive): varbinary keeps MySQL/MariaDB exact whatever the table's
// collation (their usual ones ignore case), so keys and foreign keys match
// across tables of different collations; PostgreSQL's and SQLite's default
// collations tell every two different strings apart. ent sets one collation
// for all dialects, so the types carry none.
//
// # Type names
//
// ent's code generator writes a typed ID as once.Typed[alias.Kind], with
// the kind's package imported under an alias, so the kind type must be
// exported and declared in an importable package (not in main). A kind that
// is not is reported when ent loads the schema, as a field error that
// matches [ErrConfig].
package oncent
