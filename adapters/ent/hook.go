package oncent

import (
	"context"
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/schema/mixin"

	"github.com/once-go/once/once"
)

// Mixin declares an entity's primary key as an ID of type T ([ID]) and
// fills it on create ([Hook]):
//
//	func (User) Mixin() []ent.Mixin { return []ent.Mixin{oncent.Mixin[ids.UserID]{}} }
type Mixin[T once.IDType] struct {
	mixin.Schema
}

// Fields returns the "id" field of type T.
func (Mixin[T]) Fields() []ent.Field { return []ent.Field{ID[T]()} }

// Hooks returns the hook that fills the key on create.
func (Mixin[T]) Hooks() []ent.Hook { return []ent.Hook{Hook[T]()} }

// idMutation is what ent generates for a mutation of an entity whose key
// is a user-defined field of type T.
type idMutation[T once.IDType] interface {
	ID() (T, bool)
	SetID(T)
}

// Hook returns an ent hook that gives each create mutation (Create and
// every builder of CreateBulk) a new ID of type T when it holds none or the
// zero ID, and keeps an ID the caller set. When no ID can be generated it
// returns the generator's error, naming the entity (nonce.ErrDisabled
// without a lease, once.ErrNoGenerator without a generator), and the create
// runs no SQL; a bulk create fails as a whole. Other operations pass
// through. On an entity whose key is not a T it returns an [ErrConfig]
// error.
func Hook[T once.IDType]() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if !m.Op().Is(ent.OpCreate) {
				return next.Mutate(ctx, m)
			}
			var zero T
			im, ok := m.(idMutation[T])
			if !ok {
				return nil, configError("hook for %T keys on %s, whose mutation %T has no ID of that type",
					zero, m.Type(), m)
			}
			if id, ok := im.ID(); !ok || id == zero {
				id, err := once.NewAs[T]()
				if err != nil {
					return nil, fmt.Errorf("oncent: new ID for %s: %w", m.Type(), err)
				}
				im.SetID(id)
			}
			return next.Mutate(ctx, m)
		})
	}
}
