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
// # Zero IDs
//
// bun writes arguments into the SQL text, and a Valuer's error with them,
// so the database would answer a zero ID with a syntax error. Before an
// insert or update, BeforeAppendModel refuses a row that would write the
// zero ID (a zero T in a column the query writes, a *T pointing to the
// zero ID, which is what encoding/json makes of "", a valid sql.Null[T]
// holding it, a Set argument) with an error matching once.ErrInvalid that
// names the model and field, before any SQL runs. A zero T in a `nullzero`
// column is NULL, and OmitZero and Column leave zero fields out. bun runs
// no model hook for a query without a model struct (Model((*T)(nil)),
// Table), nor checks Where arguments: a zero ID there is bun's syntax error.
//
// # Upserts
//
// An insert with On(...) or Ignore() on a model keyed by an ID itself may
// write a row other than the one sent, or none. BeforeAppendModel adds
// RETURNING of the key where the dialect has it (PostgreSQL, SQLite,
// MariaDB 10.5+), and the query hook [Register] installs matches the keys
// that come back to the structs, in statement order: each struct ends up
// holding the key of the row it was written to, or the zero key when its
// row was not written (a key the caller set is kept when a row has it);
// never a key no row has. On MySQL one row with an integer key reads it
// with id = LAST_INSERT_ID(id) (cast back to SIGNED for a signed key, which
// would be out of range when negative), which the update sets on the row it
// updated, whichever unique key conflicted (an insert ID that an
// AUTO_INCREMENT column made is told apart), and INSERT IGNORE looks the
// keys up; a batch with a Where on its conflict clause, and on MySQL a
// batch (or a text key) with ON DUPLICATE KEY UPDATE, fail with [ErrUpsert]
// before any SQL runs (bun names no conflict columns to find such rows by,
// and MySQL updates the row of whichever unique key conflicts first). The
// hook cannot fail the call: a key it cannot establish is left zero. bun's
// own RETURNING scan assigns other returned columns by position.
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
