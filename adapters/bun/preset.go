package oncebun

import (
	"context"

	"github.com/once-go/once/adapters/internal/idfield"
)

// WithPresetIDs returns a copy of ctx under which inserts (and [Fill])
// keep the IDs their models hold before the insert, in the fields the
// adapter fills: imports, backfills, and upserts of rows whose keys are
// known. Without it such an insert fails with [ErrPresetID]:
//
//	_, err := db.NewInsert().Model(&imported).Exec(oncebun.WithPresetIDs(ctx))
//
// Zero IDs are still filled. The tag `once:"preset"` keeps preset IDs for
// one field of a model in every insert. The mark is shared by the once
// adapters: a context marked through oncegorm, oncesqlx or oncent serves
// here too.
func WithPresetIDs(ctx context.Context) context.Context { return idfield.WithPresetIDs(ctx) }
