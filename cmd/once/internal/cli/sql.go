package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/once-go/once/cmd/once/internal/coord"
	"github.com/once-go/once/migrations"
)

var sqlInstallCmd = &command{
	name:    "sql install",
	usage:   "sql install --driver postgres|mysql (--dsn DSN | --print)",
	summary: "create the SQL functions once_format, once_parse, once_time, ...",
	about: `Creates the SQL functions below in the database that --dsn names
(PostgreSQL: in the first schema of its search_path, which must exist;
MySQL/MariaDB: in its database), replacing the versions once installed
before, so running it twice (or from several processes at once) is
harmless. A function of one of these names that once did not install (its
comment does not start "once: ") is left alone and the install refused,
naming it; the check runs under the install's lock. Prints nothing on
success. With --print it writes the SQL script to standard output instead,
for psql -f or the mysql client, and connects to nothing; the script
itself checks nothing and replaces such a function.

  once_format(v bigint, prefix text DEFAULT '') -> text   url64 spelling
  once_parse(s text, prefix text DEFAULT '') -> bigint    strict, as ParseAs
  once_time(v bigint) -> timestamp                        UTC, milliseconds
  once_machine_id(v bigint) -> int                        0..511
  once_min_id(t timestamp) -> bigint                      lowest ID at or after t

  SELECT * FROM users WHERE id = once_parse('usr_zAjhfZyAAAE', 'usr_');

PostgreSQL: IMMUTABLE, STRICT and PARALLEL SAFE (partition pruning sees
their results). MySQL: DETERMINISTIC; there is no default argument there,
so the prefix is always given ('' for none), and times are UTC DATETIMEs.
The functions read stored values: an ID shown masked needs "once unmask"
with the key first. The user needs the right to create functions (MySQL
with binary logging on: SUPER or log_bin_trust_function_creators=1).

--dsn for postgres: postgres://USER@HOST:5432/DB?sslmode=disable
--dsn for mysql: USER@tcp(HOST:3306)/DB, also mysql://USER@HOST:3306/DB`,
	flags: func(e *env, c *command) (*flagSet, func([]string) int) {
		fs := newFlagSet(e, c.name)
		driver := fs.String("driver", "", "the database `D`: postgres or mysql (MariaDB too); required")
		dsn := fs.String("dsn", "", "the database to install into (`DSN`; forms above)")
		printSQL := fs.Bool("print", false, "write the SQL script to standard output instead of installing it")
		return fs, func(args []string) int {
			if len(args) > 0 {
				return fs.usageError(c, "unexpected argument %s", quoteValue(args[0]))
			}
			d, err := sqlDialect(*driver)
			switch {
			case err != nil:
				return fs.usageError(c, "%v", err)
			case *printSQL && *dsn != "":
				return fs.usageError(c, "--print writes the script and connects to nothing: drop --dsn or --print")
			case *printSQL:
				src, err := migrations.FunctionsSQL(d)
				if err == nil {
					_, err = io.WriteString(e.stdout, src)
				}
				if err != nil {
					errorf(e, "once "+c.name, "%v", err)
					return exitFail
				}
				return exitOK
			case *dsn == "":
				return fs.usageError(c, "--dsn is required (or --print)")
			}
			ctx, cancel := signalContext()
			defer cancel()
			if err := installFunctions(ctx, d, *dsn); err != nil {
				return fail(e, fs, c, err)
			}
			return exitOK
		}
	},
}

// sqlDialect reads --driver of sql install.
func sqlDialect(driver string) (migrations.Dialect, error) {
	switch driver {
	case "postgres":
		return migrations.Postgres, nil
	case "mysql":
		return migrations.MySQL, nil
	case "":
		return 0, errors.New("--driver is required (postgres or mysql)")
	case "sqlite":
		return 0, errors.New("--driver sqlite: SQLite cannot define functions in SQL (want postgres or mysql)")
	}
	return 0, fmt.Errorf("--driver %s: unknown driver (want postgres or mysql)", quoteValue(driver))
}

// installFunctions connects to dsn, checks the connection for up to
// pingTimeout, checks the schema the functions would go to (checkTarget)
// and installs the functions, which fails (exitFail) over a function that
// once did not install.
func installFunctions(ctx context.Context, d migrations.Dialect, dsn string) error {
	driver := "pgx"
	if d == migrations.MySQL {
		driver = "mysql"
		var err error
		if dsn, err = coord.MySQLDSN(dsn); err != nil {
			return err
		}
	} else if _, err := pgx.ParseConfig(dsn); err != nil { // pgx masks the password
		return usageError(fmt.Errorf("--dsn: %v", err))
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return fmt.Errorf("opening %s: %w", d, err)
	}
	defer db.Close()
	pctx, cancel := context.WithTimeout(ctx, coord.PingTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		return fmt.Errorf("connecting to %s: %w", d, err)
	}
	if err := checkTarget(ctx, db, d); err != nil {
		return err
	}
	err = migrations.InstallFunctions(ctx, db, d)
	if errors.Is(err, migrations.ErrForeignFunction) {
		// The message names the function, the schema and the fix; the
		// package name adds nothing for the command's user.
		return errors.New(strings.TrimPrefix(err.Error(), "migrations: "))
	}
	return err
}

// runSQL dispatches "once sql SUBCOMMAND"; install is the only one.
func runSQL(e *env, args []string) int {
	if len(args) > 0 && args[0] == "install" {
		return runCommand(e, sqlInstallCmd, args[1:])
	}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		fs, _ := sqlInstallCmd.flags(e, sqlInstallCmd)
		writeCommandHelp(e.stdout, sqlInstallCmd, fs)
		return exitOK
	}
	if len(args) == 0 {
		errorf(e, "once sql", "missing command: once %s", sqlInstallCmd.usage)
	} else {
		errorf(e, "once sql", "unknown command %s (run \"once sql install --help\")", quoteValue(args[0]))
	}
	return exitUsage
}
