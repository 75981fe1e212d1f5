package oncent_test

import (
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/stretchr/testify/assert"

	oncent "github.com/once-go/once/adapters/ent"
	"github.com/once-go/once/once"
)

type (
	UserSpec     struct{}
	UnsignedSpec struct{}
	RawSpec      struct{}
	RawPfxSpec   struct{}
	URL64Spec    struct{}
	HexPfxSpec   struct{}
	Hex32Spec    struct{}
	BadSpec      struct{}
	hiddenSpec   struct{}
)

func (UserSpec) Options() once.Options { return once.Options{Prefix: "usr_", Mask: true} }
func (UnsignedSpec) Options() once.Options {
	return once.Options{Format: once.Unsigned, DBFormat: once.Unsigned}
}
func (RawSpec) Options() once.Options { return once.Options{DBFormat: once.Raw} }
func (RawPfxSpec) Options() once.Options {
	return once.Options{Prefix: "r_", DBFormat: once.Raw, PersistPrefix: true}
}
func (URL64Spec) Options() once.Options { return once.Options{Prefix: "u_", DBFormat: once.URL64} }
func (HexPfxSpec) Options() once.Options {
	return once.Options{Prefix: "hx_", Format: once.Hex, DBFormat: once.Hex, PersistPrefix: true}
}
func (Hex32Spec) Options() once.Options {
	return once.Options{Format: once.Hex32, DBFormat: once.Hex32}
}
func (BadSpec) Options() once.Options    { return once.Options{PersistPrefix: true} }
func (hiddenSpec) Options() once.Options { return once.Options{} }

type UserID = once.Typed[UserSpec]

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
		{oncent.Field[UserID]("a"), "once.Typed[enttestkind.UserSpec]", types("bigint", "bigint", "integer")},
		{oncent.Field[once.Typed[UnsignedSpec]]("a"), "once.Typed[enttestkind.UnsignedSpec]", types("numeric(20)", "bigint unsigned", "text")},
		{oncent.Field[once.Typed[RawSpec]]("a"), "once.Typed[enttestkind.RawSpec]", types("bytea", "binary(8)", "blob")},
		{oncent.Field[once.Typed[RawPfxSpec]]("a"), "once.Typed[enttestkind.RawPfxSpec]", types("bytea", "binary(10)", "blob")},
		{oncent.Field[once.Typed[URL64Spec]]("a"), "once.Typed[enttestkind.URL64Spec]", types("varchar(11)", "varbinary(11)", "text")},
		{oncent.Field[once.Typed[HexPfxSpec]]("a"), "once.Typed[enttestkind.HexPfxSpec]", types("varchar(19)", "varbinary(19)", "text")},
		{oncent.Field[once.Typed[Hex32Spec]]("a"), "once.Typed[enttestkind.Hex32Spec]", types("varchar(13)", "varbinary(13)", "text")},
	} {
		d := c.f.Descriptor()
		assert.NoError(t, d.Err, c.ident)
		assert.Equal(t, c.ident, d.Info.Ident, "%s: Info.Ident", c.ident)
		assert.Equal(t, c.want, d.SchemaType, "%s: SchemaType", c.ident)
		if c.ident != "once.ID" {
			assert.Equal(t, "github.com/once-go/once/adapters/ent_test", d.Info.PkgPath, "%s: package path", c.ident)
			assert.Equal(t, "enttestkind", d.Info.PkgName, "%s: package name", c.ident)
			assert.Equal(t, c.ident, d.Info.RType.Ident, "%s: RType", c.ident)
		}
	}
}

func TestBuilder(t *testing.T) {
	d := oncent.Field[UserID]("editor_id").Optional().Unique().Comment("c").
		StorageKey("editor").StructTag(`json:"e"`).Descriptor()
	assert.Equal(t, "editor_id", d.Name, "field: Name")
	assert.True(t, d.Optional, "field: Optional")
	assert.True(t, d.Nillable, "field: Nillable")
	assert.True(t, d.Unique, "field: Unique")
	assert.False(t, d.Immutable, "field: Immutable")
	assert.Equal(t, "c", d.Comment, "field: Comment")
	assert.Equal(t, "editor", d.StorageKey, "field: StorageKey")
	assert.Equal(t, `json:"e"`, d.Tag, "field: Tag")
	assert.Equal(t, nil, d.Default, "field: Default") // the nil interface: assert.Nil would pass a nil func too
	n := oncent.Field[UserID]("a").Nillable().Descriptor()
	assert.True(t, n.Nillable, "Nillable: Nillable")
	assert.False(t, n.Optional, "Nillable: Optional")
	id := oncent.ID[UserID]().Descriptor()
	assert.Equal(t, "id", id.Name, "ID: Name")
	assert.True(t, id.Immutable, "ID: Immutable")
	assert.False(t, id.Optional, "ID: Optional")
	def, ok := id.Default.(func() UserID)
	if assert.True(t, ok, "ID: Default is a %T, want a func() UserID", id.Default) {
		assert.True(t, def().IsZero(), "ID: Default() = %v, want the zero ID", def())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		f    *oncent.Builder
		want string
		also error
	}{
		{oncent.Field[once.Typed[hiddenSpec]]("id"), "oncent: field id: spec type github.com/once-go/once/adapters/ent_test.hiddenSpec is not exported", nil},
		{oncent.Field[once.Typed[BadSpec]]("author_id"), "oncent: field author_id: ", once.ErrConfig},
		{oncent.ID[once.Typed[BadSpec]](), "oncent: field id: ", once.ErrConfig},
	} {
		err := c.f.Descriptor().Err
		if assert.ErrorIs(t, err, oncent.ErrConfig, c.want) {
			assert.True(t, strings.HasPrefix(err.Error(), c.want), "%v; want oncent.ErrConfig beginning %q", err, c.want)
		}
		if c.also != nil {
			assert.ErrorIs(t, err, c.also, c.want)
		}
	}
}
