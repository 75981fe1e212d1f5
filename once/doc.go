// Package once provides ID, a 64-bit database ID that a model uses as a
// struct field: a plain bigint in the database, a short, optionally prefixed
// and masked string in the application and its JSON API.
//
// A typed ID carries its options in a zero-size spec type, so UserID and
// OrgID are distinct types that the compiler keeps apart; new IDs come from
// the nonce factory bound to [DefaultBinding] (one a lease manager
// protects):
//
//	type userSpec struct{}
//
//	func (userSpec) Options() once.Options {
//		return once.Options{Prefix: "usr_", Mask: true}
//	}
//
//	type UserID = once.Typed[userSpec]
//
//	once.DefaultBinding().Set(ids)                      // ids: a *nonce.Factory
//	if err := once.Check(UserID{}); err != nil { ... } // invalid options, at startup
//	id, err := once.NewAs[UserID]()                     // an error, never a zero ID, while no lease is held
//	id, err = once.ParseAs[UserID]("usr_zAjhfZyAAAE")
//
// The in-memory value is the stored 64-bit value (the plaintext when masked),
// a small comparable value type in the manner of [net/netip.Addr]: usable as
// a map key, zero value "no ID" ([ID.IsZero]), which has no database value.
// Three independent options shape what the application shows:
//
//   - the format: url64 (default, 11 chars of base64url), hex (16 lowercase
//     hex digits), hex32 (13 chars of lowercase base32hex, RFC 4648 §7),
//     signed or unsigned (decimal);
//   - a prefix such as "usr_", part of every spelling;
//   - masking: show E(stored) under the 64-bit block cipher of the bound
//     nonce factory instead of the stored value. The masking key can be
//     rotated: a [Keyring] holds one key per key generation, the prefix
//     names the generation ("usr_", "usr2_", ...), new spellings use the
//     current one and every generation keeps parsing.
//
// The database format is chosen separately (signed bigint by default,
// unsigned for MySQL BIGINT UNSIGNED, raw 8 bytes, or one of the text
// formats) and never sees masked values, so ORDER BY and keyset pagination
// work on the stored value.
//
// [ID] uses the package defaults. Conversions between typed and plain IDs
// are explicit Go conversions (once.ID(u), UserID(id)). The options of a
// type are read and validated once, on its first use, and cached. A type
// uses the factory of its Options.Generator binding, or the process
// default; the default binding is the package's one piece of mutable
// state. Scanning NULL into an ID is an error, and so is JSON null:
// nullable columns and fields use *T (or sql.Null[T] in SQL only).
//
// Formats, parsing rules, time bounds and the SQL functions:
// docs/ids.md and docs/sql.md in the repository
// (https://github.com/once-go/once).
package once
