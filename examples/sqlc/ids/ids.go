// Package ids declares the typed IDs of the sqlc example. sqlc.yaml maps the
// id and *_id columns to these types, so the code that sqlc generates for
// each engine (db/postgres, db/sqlite) reads and writes them directly.
package ids

import "github.com/once-go/once/once"

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

type postSpec struct{}

func (postSpec) Options() once.Options { return once.Options{Prefix: "pst_", Mask: true} }

// A UserID is "usr_" and 11 masked characters in text and JSON, a bigint in
// the table; the zero UserID ("no ID") is "" in JSON and has no database
// value. A PostID is the same with "pst_"; one cannot stand for the other.
type (
	UserID = once.Typed[userSpec]
	PostID = once.Typed[postSpec]
)
