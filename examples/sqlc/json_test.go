package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/examples/sqlc/db/postgres"
	"github.com/once-go/once/examples/sqlc/db/sqlite"
	"github.com/once-go/once/once"
)

// TestEmptyEditor: the nullable editor_id override (*ids.UserID) in JSON
// request bodies. null, or the field left out, is nil and stores NULL;
// "" decodes to a pointer to the zero ID (encoding/json allocates the
// pointer before the ID sees the text), which the insert refuses with
// once.ErrInvalid before it reaches the database.
func TestEmptyEditor(t *testing.T) {
	ctx := context.Background()
	for _, engine := range []string{"postgres", "sqlite"} {
		t.Run(engine, func(t *testing.T) {
			db := openTest(t, engine)
			var create func(body string) error
			var author string
			switch engine {
			case "postgres":
				q := postgres.New(db)
				u, err := q.CreateUser(ctx, postgres.InsertUserParams{Email: "ada@example.com"})
				require.NoError(t, err)
				author = u.ID.String()
				create = func(body string) error {
					var p postgres.InsertPostParams
					if err := json.Unmarshal([]byte(body), &p); err != nil {
						return err
					}
					_, err := q.CreatePost(ctx, p)
					return err
				}
			case "sqlite":
				q := sqlite.New(db)
				u, err := q.CreateUser(ctx, sqlite.InsertUserParams{Email: "ada@example.com"})
				require.NoError(t, err)
				author = u.ID.String()
				create = func(body string) error {
					var p sqlite.InsertPostParams
					if err := json.Unmarshal([]byte(body), &p); err != nil {
						return err
					}
					_, err := q.CreatePost(ctx, p)
					return err
				}
			}
			for _, body := range []string{`{"author_id":"` + author + `","title":"a"}`, `{"author_id":"` + author + `","editor_id":null,"title":"b"}`} {
				assert.NoError(t, create(body), "%s", body)
			}
			body := `{"author_id":"` + author + `","editor_id":"","title":"c"}`
			assert.ErrorIs(t, create(body), once.ErrInvalid, body)
			assert.Equal(t, 2, count(t, db, "sqlc_posts"), "posts")
		})
	}
}
