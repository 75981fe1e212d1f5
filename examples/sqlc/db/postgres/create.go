package postgres

// This file is written by hand; sqlc writes the others in this directory.

import (
	"context"

	"github.com/once-go/once/examples/sqlc/ids"
	"github.com/once-go/once/once"
)

// CreateUser inserts a user as InsertUser does, under a new UserID when
// arg.ID is zero (an ID already set is kept). It returns an error, and
// inserts nothing, while no ID can be made (no lease held).
func (q *Queries) CreateUser(ctx context.Context, arg InsertUserParams) (SqlcUser, error) {
	if arg.ID.IsZero() {
		id, err := once.NewAs[ids.UserID]()
		if err != nil {
			return SqlcUser{}, err
		}
		arg.ID = id
	}
	return q.InsertUser(ctx, arg)
}

// CreatePost inserts a post as InsertPost does, under a new PostID when
// arg.ID is zero (an ID already set is kept). It returns an error, and
// inserts nothing, while no ID can be made (no lease held).
func (q *Queries) CreatePost(ctx context.Context, arg InsertPostParams) (SqlcPost, error) {
	if arg.ID.IsZero() {
		id, err := once.NewAs[ids.PostID]()
		if err != nil {
			return SqlcPost{}, err
		}
		arg.ID = id
	}
	return q.InsertPost(ctx, arg)
}
