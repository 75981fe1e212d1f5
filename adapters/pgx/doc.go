// Package oncepgx is what pgx needs beyond the ID types' own Scanner and
// Valuer: a CopyFrom whose unset IDs fail as once.ErrInvalid.
//
// pgx reads and writes the once ID types with nothing more: Query, Exec,
// SendBatch and = ANY($1) with a []UserID bind them through their Valuer, in
// every exec mode. A zero ID ("no ID") has no database value, so such a
// statement fails before it reaches the database with an error matching
// once.ErrInvalid.
//
// CopyFrom is the exception: pgx streams the rows to the server while it
// encodes them, and hands an encoding error to the server as the reason to
// abort the COPY. Nothing is written, but the error that comes back is the
// server's (SQLSTATE 57014), which no longer matches once.ErrInvalid. This
// package's [CopyFrom] runs the same COPY and returns the row's own error,
// naming the row and the column:
//
//	n, err := oncepgx.CopyFrom(ctx, pool, pgx.Identifier{"users"}, []string{"id", "email"}, pgx.CopyFromRows(rows))
//	if errors.Is(err, once.ErrInvalid) { ... } // "oncepgx: row 2, column id: once: the zero ID ..."
package oncepgx
