package oncent

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"entgo.io/ent"
	"entgo.io/ent/schema/mixin"

	"github.com/once-go/once/adapters/internal/configerr"
	"github.com/once-go/once/adapters/internal/idfield"
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
// runs no SQL; a bulk create fails as a whole. A create or update that
// sets an ID field to the zero ID (which has no database value; what
// encoding/json makes of "" for a *T) fails the same way, with an error
// matching once.ErrInvalid that names the entity and field. Other
// operations pass through. On an entity whose key is not a T it returns an
// [ErrConfig] error.
func Hook[T once.IDType]() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if m.Op().Is(ent.OpUpdate | ent.OpUpdateOne) {
				if err := checkFields(m); err != nil {
					return nil, err
				}
			}
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
			if err := checkFields(m); err != nil {
				return nil, err
			}
			return next.Mutate(ctx, m)
		})
	}
}

// checkFields fails a mutation that sets an ID field to the zero ID. It
// reads (and so boxes) only the fields that hold IDs: which names do is
// learned per mutation type from the first value seen (a generated
// mutation's Field returns one Go type per name).
func checkFields(m ent.Mutation) error {
	mt := reflect.TypeOf(m)
	for _, name := range m.Fields() {
		k := fieldKey{mt, name}
		holds, known := idFields.Load(k)
		if known && !holds.(bool) {
			continue
		}
		v, ok := m.Field(name)
		if !ok || v == nil {
			continue
		}
		rv := reflect.ValueOf(v)
		_, shape, isID := idfield.Field(rv.Type())
		if !known {
			idFields.Store(k, isID)
		}
		if isID && idfield.Unset(rv, shape) {
			return configerr.New(once.ErrInvalid, "oncent",
				`%s.%s is the zero ID (no ID; JSON "" decodes so), which has no database value: set an ID, or leave the field unset (Clear it on update) for NULL`,
				m.Type(), name)
		}
	}
	return nil
}

// fieldKey names a field of a mutation type.
type fieldKey struct {
	mutation reflect.Type
	name     string
}

// idFields records whether each field seen by checkFields holds an ID.
var idFields sync.Map // fieldKey -> bool
