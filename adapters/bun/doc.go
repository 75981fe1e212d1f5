// Package oncebun makes bun fill once IDs before it inserts rows and create
// the right column types for them.
//
// Register the models once at start-up (an insert or [Fill] of a model with
// ID fields that was not registered fails with [ErrConfig] naming Register,
// before any SQL runs), and let each model fill its IDs from bun's
// BeforeAppendModel hook:
//
//	db := bun.NewDB(sqldb, pgdialect.New())
//	if err := oncebun.Register(db, (*User)(nil)); err != nil { ... }
//
//	func (u *User) BeforeAppendModel(ctx context.Context, q bun.Query) error {
//		return oncebun.BeforeAppendModel(ctx, q, u)
//	}
//
//	db.NewInsert().Model(&users).Exec(ctx) // IDs set before the INSERT is built
//
// bun's query hooks run after the SQL is built, too late to change it, so
// the model hook is the place; [Fill] does the same work explicitly.
//
// A model's only primary key (`bun:",pk"`) of an ID type is filled when
// zero, other ID fields when tagged `once:"auto"`; `once:"manual"` leaves a
// key alone. An ID set before the insert in such a field, such as an "id"
// a client sent, decoded into the model, fails the insert with
// [ErrPresetID] before any SQL runs, unless the insert's context comes from
// [WithPresetIDs] (imports, backfills, upserts of known keys) or the field
// is tagged `once:"preset"`. A bulk insert is filled all at
// once: when an ID cannot be generated (no lease: nonce.ErrDisabled) the
// insert fails before any SQL runs and no ID of the batch is left set. A row
// that would write the zero ID fails before any SQL runs with an error
// matching once.ErrInvalid that names the model and field.
//
// Upserts (On(...), Ignore()) leave each struct holding the key of the row
// it was written to, or the zero key when its row was not written; the
// batches bun cannot match fail with [ErrUpsert] before any SQL runs.
// [Register] gives each ID field the column type of its DB format for
// CreateTable (a `bun:"type:..."` tag wins) and `nullzero` ID fields bun's
// meaning of that tag in both directions.
//
// The filling rules, upserts per database and the column types in full:
// docs/adapters.md in the repository (https://github.com/once-go/once).
package oncebun
