package main

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/once-go/once/migrations"
)

// errNotFound: no user has the ID.
var errNotFound = errors.New("no such user")

// store keeps users in the table huma_users.
type store struct {
	db      *sql.DB
	dollars bool // PostgreSQL placeholders
}

// newStore creates the table if it does not exist.
func newStore(ctx context.Context, db *sql.DB, d migrations.Dialect) (*store, error) {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS huma_users
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
func (s *store) insert(ctx context.Context, u User) error {
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO huma_users (id, name, invited_by) VALUES (?, ?, ?)`),
		u.ID, u.Name, u.InvitedBy)
	return err
}

// get returns the user with the ID, or errNotFound.
func (s *store) get(ctx context.Context, id UserID) (User, error) {
	var u User
	err := s.db.QueryRowContext(ctx, s.q(`SELECT id, name, invited_by FROM huma_users WHERE id = ?`), id).
		Scan(&u.ID, &u.Name, &u.InvitedBy)
	if errors.Is(err, sql.ErrNoRows) {
		err = errNotFound
	}
	return u, err
}
