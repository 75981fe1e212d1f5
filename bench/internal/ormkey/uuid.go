// Package ormkey holds the UUIDv7 key type that the ORM benchmark
// (cmd/ormbench) stores in PostgreSQL uuid and MariaDB BINARY(16) columns.
package ormkey

import (
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// UUID is a UUID stored as its 16 bytes. Its Value is a 16-byte []byte,
// which go-sql-driver/mysql writes into a BINARY(16) column as is and pgx
// encodes into a uuid parameter; google/uuid's own Value is the 36-character
// text, which does not fit BINARY(16).
type UUID [16]byte

// NewV7 returns a new UUIDv7 (google/uuid's NewV7: 48 bits of Unix
// milliseconds, then random bits). It panics if the system's random source
// fails, as uuid.New does.
func NewV7() UUID { return UUID(uuid.Must(uuid.NewV7())) }

// IsZero reports whether u is the all-zero UUID.
func (u UUID) IsZero() bool { return u == UUID{} }

// Value implements driver.Valuer: the 16 bytes.
func (u UUID) Value() (driver.Value, error) { return u[:], nil }

// AppendQuery implements bun's schema.QueryAppender, since bun writes
// values into the SQL text: a []byte becomes a bytea literal on PostgreSQL,
// which a uuid column rejects. It writes '<32 hex digits>' on PostgreSQL (a
// uuid input form) and X'<32 hex digits>' elsewhere.
func (u UUID) AppendQuery(gen schema.QueryGen, b []byte) ([]byte, error) {
	if gen.Dialect().Name() != dialect.PG {
		b = append(b, 'X')
	}
	b = append(b, '\'')
	b = hex.AppendEncode(b, u[:])
	return append(b, '\''), nil
}

// Scan implements sql.Scanner: 16 bytes (MariaDB BINARY(16)) or the text
// form (PostgreSQL uuid read as text).
func (u *UUID) Scan(src any) error {
	switch s := src.(type) {
	case []byte:
		if len(s) == 16 {
			copy(u[:], s)
			return nil
		}
		return u.parse(string(s))
	case string:
		return u.parse(s)
	case [16]byte:
		*u = s
		return nil
	case nil:
		return errors.New("ormkey: UUID cannot be NULL")
	}
	return fmt.Errorf("ormkey: cannot scan %T into a UUID", src)
}

func (u *UUID) parse(s string) error {
	v, err := uuid.Parse(s)
	if err != nil {
		return fmt.Errorf("ormkey: %w", err)
	}
	*u = UUID(v)
	return nil
}

// String returns the canonical text form.
func (u UUID) String() string { return uuid.UUID(u).String() }
