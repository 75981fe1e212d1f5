// Package oncesqlx fills once IDs in structs before sqlx inserts them.
//
// The once ID types are database/sql Scanners and Valuers, so sqlx reads and
// writes them with nothing more: Get and Select scan into typed IDs, named
// queries bind them, and sqlx.In expands a []UserID into one bind variable per
// ID. What sqlx cannot know is which fields need a new ID before an INSERT;
// [Fill] does that:
//
//	u := User{Email: "ada@example.com"}
//	if err := oncesqlx.Fill(ctx, &u); err != nil { ... } // u.ID is set now
//	_, err := db.NamedExecContext(ctx, `INSERT INTO users (id, email) VALUES (:id, :email)`, &u)
//
// or in one step, with the IDs reset when the statement fails:
//
//	_, err := oncesqlx.NamedExec(ctx, db, `INSERT INTO users (id, email) VALUES (:id, :email)`, users)
//
// Fill sets the zero ID-typed field whose column is "id" (the `db` tag, or
// the lower-cased field name as sqlx maps it) and every ID field tagged
// `once:"auto"` (T, *T or sql.Null[T]); `once:"manual"` leaves an "id" field
// alone. When an ID cannot be generated (no lease: nonce.ErrDisabled) Fill
// returns the error and leaves nothing filled. An ID set before in such a
// field, such as an "id" a client sent, decoded into the struct, is
// [ErrPresetID] unless the context comes from [WithPresetIDs] (imports,
// backfills, upserts of known keys) or the field is tagged
// `once:"preset"`; NamedExec keeps it in a statement that begins with
// UPDATE, DELETE or SELECT, where it names a row.
//
// # The zero ID
//
// The zero ID ("no ID") has no database value: a statement that binds one
// (a zero T, a *T pointing to the zero ID, which is what encoding/json
// makes of "", or a valid sql.Null[T] holding it) fails before it reaches
// the database, with an error matching once.ErrInvalid. NamedExec checks
// the fields the statement binds and names the first such field; through
// sqlx's Exec, Get, Select and In the driver reports the ID's Value error
// (pgx: "failed to encode args[2]: ... once: the zero ID ..."; MySQL and
// SQLite: "sql: converting argument $3 type: once: ..."). A nil *T or an
// invalid sql.Null[T] is NULL.
//
// [ColumnType] gives the column type to write in migrations for an ID type.
package oncesqlx
