package oncesqlx

import (
	"context"

	"github.com/once-go/once/adapters/internal/idfield"
)

// WithPresetIDs returns a copy of ctx under which [Fill] and [NamedExec]
// keep the IDs structs hold before the insert, in the fields they fill:
// imports, backfills, and upserts of rows whose keys are known. Without
// it such a call fails with [ErrPresetID]:
//
//	_, err := oncesqlx.NamedExec(oncesqlx.WithPresetIDs(ctx), db, insertUsers, imported)
//
// Zero IDs are still filled. The tag `once:"preset"` keeps preset IDs for
// one field of a struct in every call. The mark is shared by the once
// adapters: a context marked through oncegorm, oncebun or oncent serves
// here too.
func WithPresetIDs(ctx context.Context) context.Context { return idfield.WithPresetIDs(ctx) }
