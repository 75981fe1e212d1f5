package migrations

import (
	"embed"
	"io/fs"
)

//go:embed postgres/*.sql mysql/*.sql sqlite/*.sql
var files embed.FS

// FS returns the embedded SQL files: one directory per dialect (postgres,
// mysql, sqlite), each holding, in golang-migrate naming, for the default
// table once_leases, 000001_create_once_leases.up.sql and .down.sql (the
// table and its 512 rows) and 000002_add_holder.up.sql and .down.sql (the
// nullable holder column, see [HolderColumn]).
// To use another table name with a migration tool, copy the files and
// rename the table, or call [Apply]. 000001's up file holds two statements:
// golang-migrate's MySQL driver needs multiStatements=true in its DSN.
func FS() fs.FS { return files }

// Files returns the directory of d's migrations inside [FS], for example to
// hand to golang-migrate's iofs source: iofs.New(migrations.Files(d), ".").
func Files(d Dialect) (fs.FS, error) {
	if !d.Valid() {
		return nil, configError("unknown dialect " + d.String())
	}
	return fs.Sub(files, d.String())
}

const (
	upFile       = "000001_create_once_leases.up.sql"
	downFile     = "000001_create_once_leases.down.sql"
	holderUpFile = "000002_add_holder.up.sql"
)
