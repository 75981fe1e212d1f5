package main

// readme:begin models
import "github.com/once-go/once/once"

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

type postSpec struct{}

func (postSpec) Options() once.Options { return once.Options{Prefix: "pst_", Mask: true} }

// A UserID is "usr_" and 11 masked characters in text and JSON, a bigint in
// the table; the zero UserID ("no ID") is "" in JSON and has no database value.
// A UserID where a PostID belongs does not compile.
type (
	UserID = once.Typed[userSpec]
	PostID = once.Typed[postSpec]
)

// The tags serve GORM, bun (`bun:",pk"`) and sqlx (`db`); keep your ORM's.
type User struct {
	ID    UserID `json:"id" bun:",pk"` // set before the INSERT, never auto-increment
	Email string `json:"email"`
}

type Post struct {
	ID       PostID  `json:"id" bun:",pk"`
	AuthorID UserID  `json:"author_id" db:"author_id"`
	EditorID *UserID `json:"editor_id,omitzero" db:"editor_id"` // nullable: nil is NULL, and absent from JSON
	Title    string  `json:"title"`
}

// readme:end models
