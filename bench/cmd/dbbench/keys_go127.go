//go:build go1.27

package main

import "uuid"

// The standard library's uuid.NewV7 (Go 1.27) as a client-made key, stored
// in a uuid column like google/uuid's.
func init() {
	keyTypes = append(keyTypes, keyType{"std-uuidv7", colUUID, func() (keySource, error) {
		return uuidSource{func() ([16]byte, error) { return uuid.NewV7(), nil }}, nil
	}})
}
