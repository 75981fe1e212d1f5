package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/once-go/once/nonce"
)

// column is how a key type is stored.
type column int

const (
	colBigint     column = iota // once IDs: a signed 64-bit integer (once.ID's default DB format)
	colUUID                     // PostgreSQL uuid / MariaDB BINARY(16)
	colSerial                   // bigserial / BIGINT AUTO_INCREMENT, assigned by the server
	colUUIDServer               // PostgreSQL 18: uuid DEFAULT uuidv7(), assigned by the server
)

// keyType is one primary-key variant under test.
type keyType struct {
	name string
	col  column
	// newSource returns a fresh generator for one table (one ID space);
	// nil for keys the server assigns.
	newSource func() (keySource, error)
}

// keySource yields keys for one table. next makes key number i, records it
// in ks (for the lookups later) and returns the SQL argument.
type keySource interface {
	next(ks *keyStore, i int) (any, error)
}

// keyStore keeps every inserted key so lookups can pick random existing ones.
type keyStore struct {
	ints    []int64
	uuids   [][16]byte
	uuidArg func([16]byte) any // the driver's argument form of a uuid column
}

var keyTypes = []keyType{
	{"once-counter", colBigint, func() (keySource, error) { return newNonceSource((*nonce.Factory).Counter64) }},
	{"once-sortable", colBigint, func() (keySource, error) { return newNonceSource((*nonce.Factory).Sortable64) }},
	{"once-encrypted", colBigint, func() (keySource, error) { return newNonceSource((*nonce.Factory).Encrypted64) }},
	{"uuidv4", colUUID, func() (keySource, error) {
		return uuidSource{func() ([16]byte, error) { return uuid.NewRandom() }}, nil
	}},
	{"uuidv7", colUUID, func() (keySource, error) { return uuidSource{func() ([16]byte, error) { return uuid.NewV7() }}, nil }},
	{"serial", colSerial, nil},
	{"uuidv7-server", colUUIDServer, nil}, // PostgreSQL 18's uuidv7(); left out of the default list where the server lacks it
}

// Key types that build only with Go 1.27 (the standard library's uuid
// package) append themselves to keyTypes from keys_go127.go.

func keyNames() []string {
	names := make([]string, len(keyTypes))
	for i, k := range keyTypes {
		names[i] = k.name
	}
	return names
}

// selectKeys resolves the -keys flag (comma-separated; empty = all).
func selectKeys(list string) ([]keyType, error) {
	if strings.TrimSpace(list) == "" {
		return keyTypes, nil
	}
	var out []keyType
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(keyTypes, func(k keyType) bool { return k.name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown key type %q (have %s)", name, strings.Join(keyNames(), ", "))
		}
		if !slices.ContainsFunc(out, func(k keyType) bool { return k.name == name }) {
			out = append(out, keyTypes[i])
		}
	}
	return out, nil
}

// benchBaseKey is a fixed, public 32-byte base key: the benchmark needs the
// cipher's cost and value distribution, not secrecy.
var benchBaseKey = []byte("once-bench-base-key-not-a-secret")

// nonceSource draws 64-bit nonces from its own factory. once.ID stores its
// value as the same 64 bits in a signed bigint (its Value() is int64(v)),
// so the benchmark passes int64(v) directly and needs no adapter.
type nonceSource struct {
	f   *nonce.Factory
	gen func(*nonce.Factory) (uint64, error)
}

func newNonceSource(next func(*nonce.Factory) (uint64, error)) (keySource, error) {
	f, err := nonce.New(nonce.Config{Fixed: true, MachineID: 1, BaseKey: benchBaseKey})
	if err != nil {
		return nil, err
	}
	return nonceSource{f, next}, nil
}

func (s nonceSource) next(ks *keyStore, i int) (any, error) {
	v, err := s.gen(s.f)
	if err != nil {
		return nil, err
	}
	ks.ints[i] = int64(v)
	return int64(v), nil
}

// uuidSource makes UUIDs in the client (google/uuid, or the standard
// library's with Go 1.27).
type uuidSource struct{ gen func() ([16]byte, error) }

func (s uuidSource) next(ks *keyStore, i int) (any, error) {
	u, err := s.gen()
	if err != nil {
		return nil, err
	}
	ks.uuids[i] = u
	return ks.uuidArg(u), nil
}
