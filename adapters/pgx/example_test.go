package oncepgx_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	oncepgx "github.com/once-go/once/adapters/pgx"
	"github.com/once-go/once/once"
)

// encoder stands in for a *pgx.Conn: it encodes every value of every row
// as pgx does, and fails the COPY as PostgreSQL does.
type encoder struct{}

func (encoder) CopyFrom(ctx context.Context, _ pgx.Identifier, _ []string, src pgx.CopyFromSource) (int64, error) {
	var n int64
	for src.Next() {
		if _, err := src.Values(); err != nil {
			return 0, errors.New("ERROR: COPY from stdin failed (SQLSTATE 57014)")
		}
		n++
	}
	return n, src.Err()
}

func ExampleCopyFrom() {
	rows := [][]any{{UserID(once.FromUint64(1)), "ada"}, {UserID{}, "grace"}}
	_, err := oncepgx.CopyFrom(context.Background(), encoder{}, pgx.Identifier{"users"}, []string{"id", "name"}, pgx.CopyFromRows(rows))
	fmt.Println(errors.Is(err, once.ErrInvalid))
	fmt.Println(err)
	// Output:
	// true
	// oncepgx: row 2, column id: once: the zero ID ("no ID") has no database value: set the ID before the insert (once.New, once.NewAs, an adapter), or use *T or sql.Null[T] for a nullable column
}
