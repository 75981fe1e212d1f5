package oncegorm

import (
	"context"

	"github.com/once-go/once/adapters/internal/idfield"
)

// WithPresetIDs returns a copy of ctx under which creates keep the IDs
// their models hold before the insert, in the fields the plugin fills:
// imports, backfills, and upserts of rows whose keys are known. Without
// it such a create fails with [ErrPresetID]:
//
//	err := db.WithContext(oncegorm.WithPresetIDs(ctx)).Create(&imported).Error
//
// Zero IDs are still filled. The tag `once:"preset"` keeps preset IDs for
// one field of a model in every create. The mark is shared by the once
// adapters: a context marked through oncebun, oncesqlx or oncent serves
// here too.
func WithPresetIDs(ctx context.Context) context.Context { return idfield.WithPresetIDs(ctx) }
