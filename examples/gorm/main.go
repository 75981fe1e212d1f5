// Command gorm shows once IDs in GORM models: typed keys filled before the
// INSERT, a has-many relation created in one call, typed foreign keys, and a
// lookup by an ID parsed from text.
//
//	DATABASE_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable go run ./examples/gorm
//
// DATABASE_URL defaults to that local PostgreSQL; mysql://... works too.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	oncegorm "github.com/once-go/once/adapters/gorm"
	"github.com/once-go/once/examples/internal/exampledb"
	"github.com/once-go/once/examples/internal/examplegorm"
	"github.com/once-go/once/once"
)

type (
	userSpec struct{}
	postSpec struct{}
	// UserID and PostID cannot be mixed up: the compiler keeps them apart.
	UserID = once.Typed[userSpec]
	PostID = once.Typed[postSpec]
)

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }
func (postSpec) Options() once.Options { return once.Options{Prefix: "pst_", Mask: true} }

type User struct {
	ID    UserID `json:"id"`
	Email string `json:"email"`
	Posts []Post `json:"posts,omitempty" gorm:"foreignKey:AuthorID"`
}

type Post struct {
	ID       PostID  `json:"id"`
	AuthorID UserID  `json:"author_id"`
	EditorID *UserID `json:"editor_id"` // nullable foreign key
	Title    string  `json:"title"`
}

func (User) TableName() string { return "gorm_example_users" }
func (Post) TableName() string { return "gorm_example_posts" }

func main() { exampledb.Main("gorm", run) }

// run is the example proper: db is open and a machine-ID lease on it is
// held (exampledb.Run), so once IDs can be made.
func run(ctx context.Context, out io.Writer, db *exampledb.DB) (err error) {
	g, err := examplegorm.Open(db)
	if err != nil {
		return err
	}
	// Register fills IDs on create and gives the ID columns their types.
	if err := oncegorm.Register(g, &User{}, &Post{}); err != nil {
		return err
	}
	m := g.Migrator()
	if err := m.DropTable(&Post{}, &User{}); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.DropTable(&Post{}, &User{})) }()
	if err := g.AutoMigrate(&User{}, &Post{}); err != nil {
		return err
	}

	// One call inserts the user, then its posts with the user's ID as
	// their foreign key: every key is made before its INSERT.
	u := User{Email: "ada@example.com", Posts: []Post{{Title: "Notes on the engine"}, {Title: "Sketch"}}}
	if err := g.Create(&u).Error; err != nil {
		return err
	}
	js, err := json.MarshalIndent(u, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s\n", js)

	// A client sends "usr_..." back: parse it, then query by it.
	id, err := once.ParseAs[UserID](u.ID.String())
	if err != nil {
		return err
	}
	var posts []Post
	if err := g.Where("author_id = ?", id).Order("id").Find(&posts).Error; err != nil {
		return err
	}
	fmt.Fprintf(out, "posts by %s: %d\n", id, len(posts))
	return nil
}
