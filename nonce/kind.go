package nonce

import "strconv"

// Kind names a kind of nonce: how a value is made. The zero Kind means the
// default, [Counter]. Package once takes a Kind in its Options.Nonce to
// choose how new IDs are made; [Config.EncryptedBase] takes one to choose
// what encrypted nonces are made from.
type Kind uint8

// Kinds of nonce.
const (
	Counter   Kind = iota + 1 // counter nonces: fastest; the timestamp lags real time while idle
	Sortable                  // sortable nonces: the exact creation millisecond, a capped rate
	Encrypted                 // encrypted nonces: unique and unpredictable (needs key material)
)

var kindNames = [...]string{"default", "counter", "sortable", "encrypted"}

// String returns "counter", "sortable", "encrypted", or "default" for the
// zero Kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}
