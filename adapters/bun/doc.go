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
// bun's query hooks (bun.QueryHook) run after the SQL is built, too late to
// change it, so the model hook is the place; [Fill] does the same work
// explicitly for code that prefers to call it before NewInsert.
//
// # Filling
//
// A model's only primary key (`bun:",pk"`) of an ID type is filled when
// zero (the parts of a composite key are foreign keys as a rule), and other ID
// fields when tagged `once:"auto"` (T, *T or sql.Null[T]); `once:"manual"`
// leaves a key alone. IDs already set are kept. Single and bulk inserts
// (a slice of structs or pointers) are filled all at once: when an ID cannot
// be generated (no lease: nonce.ErrDisabled) the insert fails before any SQL
// runs and no ID of the batch is left set.
//
// # Schemas
//
// [Register] gives each ID field of the models' tables the column type of
// its DB format in the dialect, which CreateTable uses (a `bun:"type:..."`
// tag wins):
//
//	DB format    PostgreSQL             MySQL/MariaDB                           SQLite
//	signed       bigint                 bigint                                  integer
//	unsigned     numeric(20)            bigint unsigned                         text
//	raw          bytea                  binary(8+len(prefix))                   blob
//	url64 etc.   varchar(n) collate "C" varchar(n) charset ascii collate ascii_bin text
//
// It also gives `nullzero` ID fields bun's meaning of that tag in both
// directions: a zero ID is written as NULL, and NULL reads back as the zero
// ID (the once types alone reject NULL). For nullable columns *T and
// sql.Null[T] need no tag.
package oncebun
