// Package once provides ID, a 64-bit database ID that a model uses as a
// struct field: a plain bigint in the database, a short, optionally prefixed
// and masked string in the application and its JSON API.
//
// The in-memory value is the stored 64-bit value (the plaintext when masked),
// a small comparable value type in the manner of [net/netip.Addr]: usable as
// a map key, zero value "no ID" ([ID.IsZero]). Three independent options
// shape what the application shows:
//
//   - the format: url64 (default, 11 chars of base64url), hex (16 lowercase
//     hex digits), hex32 (13 chars of lowercase base32hex, RFC 4648 §7),
//     signed or unsigned (decimal);
//   - a prefix such as "usr_", part of every spelling;
//   - masking: show E(stored) under the 64-bit block cipher of the bound
//     nonce factory instead of the stored value.
//
// The database format is chosen separately (signed bigint by default,
// unsigned for MySQL BIGINT UNSIGNED, raw 8 bytes, or one of the text
// formats) and never sees masked values, so ORDER BY and keyset pagination
// work on the stored value.
//
// # Typed IDs
//
// [ID] uses the package defaults. [Typed] carries per-type options: its type
// parameter is a zero-size kind type whose Options method declares them, so
// UserID and OrgID are distinct types that the compiler keeps apart:
//
//	type userKind struct{}
//
//	func (userKind) Options() once.Options {
//		return once.Options{Prefix: "usr_", Mask: true}
//	}
//
//	type UserID = once.Typed[userKind]
//
// Conversions between typed and plain IDs are explicit Go conversions
// (once.ID(u), UserID(id)). The options of a type are read and validated
// once, on its first use, and cached; call [Check] at startup to report
// invalid options before the first request.
//
// # Generators
//
// New IDs ([New], [NewAs]) and masking draw on a [nonce.Factory]. A type
// uses the factory of its Options.Generator binding, or the process default
// set with [SetGenerator]. The default binding is the package's one piece of
// mutable state.
//
// # Nullable IDs
//
// Scanning NULL into an ID is an error, and so is JSON null. Nullable
// columns and fields use sql.Null[T] or *T.
package once
