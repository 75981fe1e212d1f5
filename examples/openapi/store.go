package main

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/once-go/once/examples/openapi/ids"
	"github.com/once-go/once/migrations"
)

// user is a row of the table.
type user struct {
	ID        ids.UserID
	Name      string
	InvitedBy *ids.UserID // NULL when nil
}

// errNotFound: no user has the ID.
var errNotFound = errors.New("no such user")

// store keeps users in the table openapi_users; both servers share it.
type store struct {
	db      *sql.DB
	dollars bool // PostgreSQL placeholders
}

// newStore creates the table if it does not exist.
func newStore(ctx context.Context, db *sql.DB, d migrations.Dialect) (*store, error) {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS openapi_users
		(id bigint PRIMARY KEY, name varchar(100) NOT NULL, invited_by bigint NULL)`)
	return &store{db: db, dollars: d == migrations.Postgres}, err
}

// q spells the ? placeholders of query for the database.
func (s *store) q(query string) string {
	if !s.dollars {
		return query
	}
	for i := 1; strings.Contains(query, "?"); i++ {
		query = strings.Replace(query, "?", "$"+strconv.Itoa(i), 1)
	}
	return query
}

// insert stores u (InvitedBy nil: NULL).
func (s *store) insert(ctx context.Context, u user) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO openapi_users (id, name, invited_by) VALUES (?, ?, ?)`),
		u.ID, u.Name, u.InvitedBy)
	return err
}

// get returns the user with the ID, or errNotFound.
func (s *store) get(ctx context.Context, id ids.UserID) (user, error) {
	var u user
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, name, invited_by FROM openapi_users WHERE id = ?`), id).
		Scan(&u.ID, &u.Name, &u.InvitedBy)
	if errors.Is(err, sql.ErrNoRows) {
		err = errNotFound
	}
	return u, err
}

// create stores a new user with a new ID; errNotFound when invitedBy names
// no user.
func (s *store) create(ctx context.Context, name string, invitedBy *ids.UserID) (user, error) {
	if invitedBy != nil {
		if _, err := s.get(ctx, *invitedBy); err != nil {
			return user{}, err
		}
	}
	id, err := ids.NewUserID()
	if err != nil {
		return user{}, err
	}
	u := user{ID: id, Name: name, InvitedBy: invitedBy}
	return u, s.insert(ctx, u)
}
