// Package sqlitedrv registers the module's one pure-Go SQLite driver under
// the database/sql name "sqlite". Every package, test and example in this
// module that needs SQLite imports this package instead of a driver, so two
// drivers never try to register the same name.
package sqlitedrv

import _ "github.com/glebarez/go-sqlite" // registers "sqlite" (pure Go, on modernc.org/sqlite's engine)

// DriverName is the database/sql driver name to pass to sql.Open.
const DriverName = "sqlite"
