// Package model holds the GraphQL object types.
package model

import "github.com/once-go/once/examples/graphql/ids"

// User is a row of the users table; the invitedBy field is resolved from
// InvitedByID.
type User struct {
	ID          ids.UserID `json:"id"`
	Name        string     `json:"name"`
	InvitedByID *ids.UserID
}
