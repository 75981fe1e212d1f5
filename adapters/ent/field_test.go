package oncent_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"entgo.io/ent/dialect"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/once"
)

type (
	UserKind     struct{}
	UnsignedKind struct{}
	RawKind      struct{}
	RawPfxKind   struct{}
	URL64Kind    struct{}
	HexPfxKind   struct{}
	Hex32Kind    struct{}
	BadKind      struct{}
	hiddenKind   struct{}
)

func (UserKind) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }
func (UnsignedKind) Options() once.Options {
	return once.Options{Format: once.Unsigned, DBFormat: once.Unsigned}
}
func (RawKind) Options() once.Options { return once.Options{DBFormat: once.Raw} }
func (RawPfxKind) Options() once.Options {
	return once.Options{Prefix: "r_", DBFormat: once.Raw, PersistPrefix: true}
}
func (URL64Kind) Options() once.Options { return once.Options{Prefix: "u_", DBFormat: once.URL64} }
func (HexPfxKind) Options() once.Options {
	return once.Options{Prefix: "hx_", Format: once.Hex, DBFormat: once.Hex, PersistPrefix: true}
}
func (Hex32Kind) Options() once.Options {
	return once.Options{Format: once.Hex32, DBFormat: once.Hex32}
}
func (BadKind) Options() once.Options    { return once.Options{PersistPrefix: true} }
func (hiddenKind) Options() once.Options { return once.Options{} }

type UserID = once.Typed[UserKind]

func types(pg, my, lite string) map[string]string {
	return map[string]string{dialect.Postgres: pg, dialect.MySQL: my, dialect.SQLite: lite}
}

func TestSchemaTypes(t *testing.T) {
	for _, c := range []struct {
		f     *oncent.Builder
		ident string
		want  map[string]string
	}{
		{oncent.Field[once.ID]("a"), "once.ID", types("bigint", "bigint", "integer")},
		{oncent.Field[UserID]("a"), "once.Typed[enttestkind.UserKind]", types("bigint", "bigint", "integer")},
		{oncent.Field[once.Typed[UnsignedKind]]("a"), "once.Typed[enttestkind.UnsignedKind]", types("numeric(20)", "bigint unsigned", "text")},
		{oncent.Field[once.Typed[RawKind]]("a"), "once.Typed[enttestkind.RawKind]", types("bytea", "binary(8)", "blob")},
		{oncent.Field[once.Typed[RawPfxKind]]("a"), "once.Typed[enttestkind.RawPfxKind]", types("bytea", "binary(10)", "blob")},
		{oncent.Field[once.Typed[URL64Kind]]("a"), "once.Typed[enttestkind.URL64Kind]", types("varchar(11)", "varbinary(11)", "text")},
		{oncent.Field[once.Typed[HexPfxKind]]("a"), "once.Typed[enttestkind.HexPfxKind]", types("varchar(19)", "varbinary(19)", "text")},
		{oncent.Field[once.Typed[Hex32Kind]]("a"), "once.Typed[enttestkind.Hex32Kind]", types("varchar(13)", "varbinary(13)", "text")},
	} {
		d := c.f.Descriptor()
		if d.Err != nil || d.Info.Ident != c.ident || !maps.Equal(d.SchemaType, c.want) {
			t.Errorf("%s: %v, %s, %v; want %s, %v", c.ident, d.Err, d.Info.Ident, d.SchemaType, c.ident, c.want)
		}
		if c.ident != "once.ID" && (d.Info.PkgPath != "github.com/once-go/once/adapters/ent_test" || d.Info.PkgName != "enttestkind" || d.Info.RType.Ident != c.ident) {
			t.Errorf("%s: package %s as %s, RType %s", c.ident, d.Info.PkgPath, d.Info.PkgName, d.Info.RType.Ident)
		}
	}
}

func TestBuilder(t *testing.T) {
	d := oncent.Field[UserID]("editor_id").Optional().Unique().Comment("c").
		StorageKey("editor").StructTag(`json:"e"`).Descriptor()
	if d.Name != "editor_id" || !d.Optional || !d.Nillable || !d.Unique || d.Immutable || d.Comment != "c" ||
		d.StorageKey != "editor" || d.Tag != `json:"e"` || d.Default != nil {
		t.Errorf("field: %+v", d)
	}
	if d := oncent.Field[UserID]("a").Nillable().Descriptor(); !d.Nillable || d.Optional {
		t.Errorf("Nillable: %+v", d)
	}
	id := oncent.ID[UserID]().Descriptor()
	def, ok := id.Default.(func() UserID)
	if id.Name != "id" || !id.Immutable || id.Optional || !ok || !def().IsZero() {
		t.Errorf("ID: %+v", id)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		f    *oncent.Builder
		want string
		also error
	}{
		{oncent.Field[once.Typed[hiddenKind]]("id"), "oncent: field id: kind type github.com/once-go/once/adapters/ent_test.hiddenKind is not exported", nil},
		{oncent.Field[once.Typed[BadKind]]("author_id"), "oncent: field author_id: ", once.ErrConfig},
		{oncent.ID[once.Typed[BadKind]](), "oncent: field id: ", once.ErrConfig},
	} {
		err := c.f.Descriptor().Err
		if !errors.Is(err, oncent.ErrConfig) || !strings.HasPrefix(err.Error(), c.want) || c.also != nil && !errors.Is(err, c.also) {
			t.Errorf("%v; want oncent.ErrConfig beginning %q", err, c.want)
		}
	}
}
