package coord

// The command's one SQLite driver: pure Go, on modernc.org/sqlite's
// engine. It registers the database/sql name "sqlite".
import _ "github.com/glebarez/go-sqlite"

// SQLiteDriver is the database/sql driver name of SQLite.
const SQLiteDriver = "sqlite"
