package graph

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/once-go/once/examples/graphql/graph/model"
	"github.com/once-go/once/examples/graphql/ids"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/once"
)

// errNotFound: no user has the ID.
var errNotFound = errors.New("no such user")

// Store keeps users in the table graphql_users.
type Store struct {
	db      *sql.DB
	dollars bool // PostgreSQL placeholders
}

// NewStore creates the table if it does not exist.
func NewStore(ctx context.Context, db *sql.DB, d migrations.Dialect) (*Store, error) {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS graphql_users
		(id bigint PRIMARY KEY, name varchar(100) NOT NULL, invited_by bigint NULL)`)
	return &Store{db: db, dollars: d == migrations.Postgres}, err
}

// q spells the ? placeholders of query for the database.
func (s *Store) q(query string) string {
	if !s.dollars {
		return query
	}
	for i := 1; strings.Contains(query, "?"); i++ {
		query = strings.Replace(query, "?", "$"+strconv.Itoa(i), 1)
	}
	return query
}

// create stores a new user with a new ID; errNotFound when invitedBy names
// no user.
func (s *Store) create(ctx context.Context, name string, invitedBy *ids.UserID) (*model.User, error) {
	if invitedBy != nil {
		if _, err := s.get(ctx, *invitedBy); err != nil {
			return nil, err
		}
	}
	id, err := once.NewAs[ids.UserID]()
	if err != nil {
		return nil, err
	}
	u := &model.User{ID: id, Name: name, InvitedByID: invitedBy}
	_, err = s.db.ExecContext(ctx, s.q(`INSERT INTO graphql_users (id, name, invited_by) VALUES (?, ?, ?)`),
		u.ID, u.Name, u.InvitedByID)
	return u, err
}

// get returns the user with the ID, or errNotFound.
func (s *Store) get(ctx context.Context, id ids.UserID) (*model.User, error) {
	var u model.User
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, name, invited_by FROM graphql_users WHERE id = ?`), id).
		Scan(&u.ID, &u.Name, &u.InvitedByID)
	if errors.Is(err, sql.ErrNoRows) {
		err = errNotFound
	}
	return &u, err
}
