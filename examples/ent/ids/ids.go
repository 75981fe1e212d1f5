// Package ids declares the example's ID types. ent's generated code names a
// typed ID as once.Typed[ids.UserSpec], so the spec types are exported and
// live in a package of their own.
package ids

import "github.com/once-go/once/once"

// UserSpec declares UserID: "usr_" and 11 masked characters in text and
// JSON, a bigint in the table.
type UserSpec struct{}

// Options implements once.Spec.
func (UserSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }

// PostSpec declares PostID: "pst_" and 11 masked characters.
type PostSpec struct{}

// Options implements once.Spec.
func (PostSpec) Options() once.Options { return once.Options{Prefix: "pst_", Mask: true} }

// Typed IDs: a UserID where a PostID belongs does not compile.
type (
	UserID = once.Typed[UserSpec]
	PostID = once.Typed[PostSpec]
)

// TagSpec declares TagID: "tag_" and 11 url64 characters, stored as that
// text (without the prefix) rather than a bigint.
type TagSpec struct{}

// Options implements once.Spec.
func (TagSpec) Options() once.Options { return once.Options{Prefix: "tag_", DBFormat: once.URL64} }

// TagID is a text-stored ID.
type TagID = once.Typed[TagSpec]
