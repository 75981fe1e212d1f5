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
// # Filling
//
// Before GORM's BeforeCreate hooks run, the plugin gives every zero ID field
// that is the model's only primary key a new ID from the type's generator (once.NewAs), in
// single rows, slices and the associations GORM creates with them (GORM
// creates associations through the same create callbacks). Fields that are
// not keys are filled when tagged `once:"auto"` (T, *T or sql.Null[T]);
// a key tagged `once:"manual"` is never filled. IDs that are already set are
// kept. When an ID cannot be generated (no lease held: nonce.ErrDisabled;
// no generator: once.ErrNoGenerator) the create fails with that error, no
// row is written and the IDs filled so far are reset; so they are when the
// create fails for any other reason.
//
// # Zero IDs
//
// The zero ID has no database value. A create or update that would write
// one (a zero T that is written, a *T pointing to the zero ID, which is
// what encoding/json makes of "", a valid sql.Null[T] holding it, a map
// value) fails before any SQL runs with an error matching once.ErrInvalid
// that names the model and field. A zero T that GORM does not write (a
// field of Updates(struct) not selected, a field with a database default)
// is no concern.
//
// # Upserts
//
// The plugin runs GORM's creates with ON CONFLICT (clause.OnConflict, Save
// of a slice, the associations GORM saves) and with INSERT IGNORE
// (clause.Insert{Modifier: "IGNORE"}) on a model keyed by an ID itself, so
// that each struct ends up holding the key of the row it was written to, or
// the zero key when its row was not written (a key the caller set is kept
// when a row has it); never a key no row has. Where the database has
// RETURNING (PostgreSQL, SQLite, MariaDB 10.5+) the keys come back on the
// same statement and are matched to the structs in statement order. On
// MySQL one row with an integer key reads it with id = LAST_INSERT_ID(id)
// (cast back to SIGNED for a signed key, which would be out of range when
// negative), which the update sets on the row it updated, whichever unique
// key conflicted (an insert ID that an AUTO_INCREMENT column made is told
// apart). Otherwise the keys are looked up by key, and a row that updated
// another row by the conflict columns (clause.OnConflict{Columns: ...}), in
// the statement's transaction (one of its own under
// SkipDefaultTransaction). MySQL updates the row of whichever unique key
// conflicts first, so this holds only when the conflict columns are a
// unique key and the table has no other besides the primary key: the
// catalog is read after the statement, under its metadata lock, and any
// other unique key fails the upsert with [ErrUpsert] naming the keys
// (GORM's transaction rolls back). Such an upsert also fails with
// [ErrUpsert], before any SQL runs, without conflict columns, when two rows
// are sent with the same key, or when the update sets the primary key or a
// conflict column to anything but the value sent.
//
// # Schemas
//
// The once package imports no ORM, so its ID types cannot declare GORM's
// GormDBDataType. GORM therefore sees an ID as the type its Value returns
// (int64 for the default signed DB format) and treats an integer primary key
// as auto-increment. Register and [Prepare] correct the cached schemas of
// the models given (and of every model they relate to): each ID field gets
// the column type of its type's DB format in the dialect (see the table
// below), and ID primary keys lose auto-increment. Prepare every model
// before AutoMigrate; a `gorm:"type:..."` tag always wins.
//
//	DB format    PostgreSQL             MySQL/MariaDB                           SQLite
//	signed       bigint                 bigint                                  integer
//	unsigned     numeric(20)            bigint unsigned                         text
//	raw          bytea                  binary(8+len(prefix))                   blob
//	url64 etc.   varchar(n) collate "C" varchar(n) charset ascii collate ascii_bin text
//
// Foreign keys of typed ID types (UserID UserID, or *UserID / sql.Null[UserID]
// when nullable) get the same column type as the key they reference.
package oncegorm
