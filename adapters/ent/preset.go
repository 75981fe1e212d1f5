package oncent

import (
	"context"

	"github.com/once-go/once/adapters/internal/idfield"
)

// WithPresetIDs returns a copy of ctx under which creates keep a key set
// before them (SetID): imports, backfills, and upserts of rows whose keys
// are known. Without it such a create fails with [ErrPresetID]:
//
//	err := client.User.Create().SetID(id).SetEmail(email).Exec(oncent.WithPresetIDs(ctx))
//
// Creates without a key still get a new one. [Mixin]'s PresetIDs keeps
// preset keys for one entity in every create. The mark is shared by the
// once adapters: a context marked through oncegorm, oncebun or oncesqlx
// serves here too.
func WithPresetIDs(ctx context.Context) context.Context { return idfield.WithPresetIDs(ctx) }
