package leasekit

// TokenLen is the length of NewTokenString's tokens.
const TokenLen = 22

// HolderToken is the value a key-value strategy (Redis, etcd) stores for
// a lease: the random token, then '|' and the holder (see Holder) when
// holder is not empty. The whole value is the lease's proof of ownership,
// compared as one string, so the holder costs no second key or field.
func HolderToken(token, holder string) string {
	if holder == "" {
		return token
	}
	return token + "|" + holder
}

// HolderOf returns the holder recorded in a value HolderToken
// made, "" when it recorded none (a bare token: another implementation
// sharing the coordinator, or a holder that recorded nothing).
func HolderOf(v string) string {
	if len(v) > TokenLen && v[TokenLen] == '|' {
		return v[TokenLen+1:]
	}
	return ""
}
