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
// (edge.From("author", User.Type).Ref("posts").Field("author_id")).
//
// [Hook] runs on every create, single or bulk: it sets a new ID
// (once.NewAs) when the mutation holds none and otherwise returns the
// generator's error (no lease: nonce.ErrDisabled), so the create fails
// before any SQL runs; it also refuses a create or update that sets an ID
// field to the zero ID (once.ErrInvalid). A create whose key was set
// (SetID, such as with an "id" a client sent) fails with [ErrPresetID]
// unless its context comes from [WithPresetIDs] (imports, backfills,
// upserts by key) or the entity's mixin sets PresetIDs. Every field gets the column type
// of its ID type's DB format per dialect.
//
// ent's code generator writes a typed ID as once.Typed[alias.Kind], so the
// spec type must be exported and live in an importable package (not main);
// one that is not is a field error matching [ErrConfig]. ent's generated
// IDs, FirstID, OnlyID and Exist fail for struct key types (ent #4139,
// #4348): use Count for Exist and the keys of Select(FieldID).All for IDs.
//
// Upserts, key queries and the column types in full: docs/adapters.md in the
// repository (https://github.com/once-go/once).
package oncent
