// Package ids declares the ID type of the example, which both generated
// servers use (x-go-type, x-ogen-type).
package ids

import "github.com/once-go/once/once"

type userSpec struct{}

func (userSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// UserID is shown as "usr_" and 11 characters, masked; stored as a bigint.
//
// It is a defined type embedding the typed ID, whose methods (text, JSON,
// SQL, Options) it has, rather than the alias type UserID =
// once.Typed[userSpec]: ogen's x-ogen-type (v1.24) resolves defined types
// only. oapi-codegen's x-go-type takes either.
type UserID struct{ once.Typed[userSpec] }

// NewUserID returns a new ID from the default generator (once.NewAs).
func NewUserID() (UserID, error) {
	id, err := once.NewAs[once.Typed[userSpec]]()
	return UserID{id}, err
}
