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
// row is written and the IDs filled so far are reset.
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
