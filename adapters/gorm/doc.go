// Package oncegorm makes GORM fill once IDs before it inserts rows and
// create the right column types for them.
//
// Register the plugin with the models it should prepare, then migrate and
// create as usual:
//
//	db, _ := gorm.Open(postgres.Open(dsn))
//	if err := oncegorm.Register(db, &User{}, &Post{}); err != nil { ... }
//	db.AutoMigrate(&User{}, &Post{})
//	db.Create(&User{Email: "a@example.com"}) // ID is set before the INSERT
//
// Before each Create the plugin gives every zero ID field that is the
// model's only primary key a new ID (once.NewAs), in single rows, slices
// and the associations GORM creates with them; other ID fields when tagged
// `once:"auto"`, never a key tagged `once:"manual"`. When an ID cannot be
// generated (no lease: nonce.ErrDisabled) or the create fails, no row is
// written and the IDs filled are reset.
//
// An ID set before the create in such a field, such as an "id" a client
// sent, decoded into the model, fails the create with [ErrPresetID] before
// any SQL runs, unless the create opts in ([WithPresetIDs]) or the field is
// tagged `once:"preset"`: imports, backfills and upserts of known keys
// (Save of a slice, associations that hold a key) opt in.
//
// A create or update that would write the zero ID ("no ID", which has no
// database value) fails before any SQL runs with an error matching
// once.ErrInvalid that names the model and field. Upserts (ON CONFLICT,
// INSERT IGNORE, Save of a slice) leave each struct holding the key of the
// row it was written to, or the zero key when its row was not written,
// never a key no row has. On MySQL without RETURNING, an upsert that is
// looked up by its conflict columns needs clause.OnConflict{Columns: ...}
// naming the table's only unique key besides the primary key; otherwise it
// fails with [ErrUpsert] naming the other keys, and nothing is written.
//
// Register and [Prepare] give each ID field the column type of its DB
// format (bigint for the default) without auto-increment; prepare every
// model before AutoMigrate (a `gorm:"type:..."` tag always wins).
//
// The filling rules, upserts per database and the column types in full:
// docs/adapters.md in the repository (https://github.com/once-go/once).
package oncegorm
