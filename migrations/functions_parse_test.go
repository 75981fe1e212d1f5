package migrations_test

import (
	"database/sql"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/once-go/once/internal/testenv"
	"github.com/once-go/once/migrations"
	"github.com/once-go/once/once"
)

// The ID types whose ParseAs once_parse must agree with, one per entry of
// prefixes after the first (the empty prefix, which once.Parse reads).
type (
	fnKind1 struct{}
	fnKind2 struct{}
	fnKind3 struct{}
	fnKind4 struct{}
)

func (fnKind1) Options() once.Options { return once.Options{Prefix: prefixes[1]} }
func (fnKind2) Options() once.Options { return once.Options{Prefix: prefixes[2]} }
func (fnKind3) Options() once.Options { return once.Options{Prefix: prefixes[3]} }
func (fnKind4) Options() once.Options { return once.Options{Prefix: prefixes[4]} }

// goParse parses s as once.ParseAs does for the ID type with prefixes[p].
func goParse(p uint8, s string) (int64, error) {
	var id once.ID
	var err error
	switch p % uint8(len(prefixes)) {
	case 0:
		id, err = once.Parse(s)
	case 1:
		var t once.Typed[fnKind1]
		t, err = once.ParseAs[once.Typed[fnKind1]](s)
		id = once.ID(t)
	case 2:
		var t once.Typed[fnKind2]
		t, err = once.ParseAs[once.Typed[fnKind2]](s)
		id = once.ID(t)
	case 3:
		var t once.Typed[fnKind3]
		t, err = once.ParseAs[once.Typed[fnKind3]](s)
		id = once.ID(t)
	case 4:
		var t once.Typed[fnKind4]
		t, err = once.ParseAs[once.Typed[fnKind4]](s)
		id = once.ID(t)
	}
	return id.Int64(), err
}

// parseCorpus is a fuzz-style corpus for once_parse: canonical spellings
// with each prefix, and mutations of them (every byte replaced by bytes
// near and outside the alphabet, bytes deleted and inserted, every last
// character, the prefix missing, doubled, in another case, whitespace
// around), plus the other formats' spellings and the conformance vectors'
// invalid and lenient-only inputs. It is deterministic.
func parseCorpus(t testing.TB) (inputs []string, prefixIdx []uint8) {
	add := func(s string, p int) {
		inputs = append(inputs, s)
		prefixIdx = append(prefixIdx, uint8(p))
	}
	r := rand.New(rand.NewPCG(22, 22))
	vals := append([]int64(nil), edgeValues...)
	for range 6 {
		vals = append(vals, int64(r.Uint64()))
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	replacements := []string{"A", "a", "_", "-", "+", "/", "=", " ", "\t", ".", "\x00", "é", "\xff", "Ā", "9"}
	for pi, prefix := range prefixes {
		for vi, v := range vals {
			canon, _ := once.Options{Prefix: prefix}.AppendText(nil, once.FromInt64(v))
			w := string(canon)
			body := w[len(prefix):]
			add(w, pi)
			add(strings.ToUpper(w), pi)
			add(" "+w, pi)
			add(w+"\n", pi)
			add(prefix+prefix+body, pi)
			add(body, pi)
			if prefix != "" {
				add(strings.ToUpper(prefix)+body, pi)
				add(prefix[:len(prefix)-1]+body, pi)
			}
			add(prefix+body[:10], pi)
			add(prefix+body+"A", pi)
			add(prefix+body+"=", pi)
			add(w, (pi+1)%len(prefixes)) // another type's prefix
			if vi%4 != 0 {
				continue // the byte-level mutations on a quarter of the values
			}
			for i := range len(body) {
				add(prefix+body[:i]+body[i+1:], pi)
				add(prefix+body[:i]+"A"+body[i:], pi)
				for _, rep := range replacements {
					add(prefix+body[:i]+rep+body[i+1:], pi)
				}
			}
			for _, c := range alphabet {
				add(prefix+body[:10]+string(c), pi)
			}
			for _, f := range []once.Format{once.Hex, once.Hex32, once.Signed, once.Unsigned} {
				s, _ := once.Options{Prefix: prefix, Format: f}.AppendText(nil, once.FromInt64(v))
				add(string(s), pi)
			}
		}
		add("", pi)
		add(prefix, pi)
		add(prefix+strings.Repeat("A", 300), pi)
	}
	c := loadConformanceText(t)
	for _, s := range c {
		for pi := range prefixes {
			add(s, pi)
			add(prefixes[pi]+s, pi)
		}
	}
	return inputs, prefixIdx
}

// TestOnceParseCorpus: once_parse accepts exactly what once.ParseAs
// accepts, with the same value, on the parse corpus (thousands of
// spellings, most invalid), on PostgreSQL and MySQL.
func TestOnceParseCorpus(t *testing.T) {
	inputs, idx := parseCorpus(t)
	invalid := 0
	for i, s := range inputs {
		if _, err := goParse(idx[i], s); err != nil {
			invalid++
		}
	}
	t.Logf("corpus: %d spellings, %d invalid for Go", len(inputs), invalid)
	for _, d := range sqlDialects {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			db, ctx := functionsDB(t, d), ctxT(t)
			stmt, err := db.PrepareContext(ctx, "SELECT once_parse("+ph(d, 1)+", "+ph(d, 2)+")")
			require.NoError(t, err)
			defer stmt.Close()
			// Four workers: the corpus is one query per spelling.
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < len(inputs); i += 4 {
						checkParse(t, d, stmt, inputs[i], idx[i])
					}
				})
			}
			wg.Wait()
		})
	}
}

// checkParse compares once_parse(s, prefixes[p]) with Go's ParseAs.
func checkParse(t *testing.T, d migrations.Dialect, stmt *sql.Stmt, s string, p uint8) {
	p %= uint8(len(prefixes))
	want, goErr := goParse(p, s)
	var got int64
	err := stmt.QueryRowContext(t.Context(), s, prefixes[p]).Scan(&got)
	if goErr == nil {
		if assert.NoError(t, err, "once_parse(%q, %q); Go reads %d", s, prefixes[p], want) {
			assert.Equal(t, want, got, "once_parse(%q, %q); Go reads it", s, prefixes[p])
		}
		return
	}
	if assert.Error(t, err, "once_parse(%q, %q) = %d; Go rejects it: %v", s, prefixes[p], got, goErr) && reachesFunction(d, s) {
		assert.Contains(t, err.Error(), "once_parse: invalid ID", "once_parse(%q, %q): want the function's own error", s, prefixes[p])
	}
}

// reachesFunction reports whether s reaches once_parse as text: PostgreSQL
// text holds valid UTF-8 without NUL, MySQL's parameter valid UTF-8 of at
// most 300 characters; other input is refused by the server first.
func reachesFunction(d migrations.Dialect, s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	if d == migrations.Postgres {
		return !strings.Contains(s, "\x00")
	}
	return utf8.RuneCountInString(s) <= 300
}

// fuzzParse is the body of the once_parse fuzz targets of d.
func fuzzParse(f *testing.F, d migrations.Dialect) {
	inputs, idx := parseCorpus(f)
	for i, s := range inputs {
		if i%7 == 0 { // a seventh of the corpus as seeds; TestOnceParseCorpus runs all of it
			f.Add(s, idx[i])
		}
	}
	var db *sql.DB
	if d == migrations.Postgres {
		db, _ = testenv.PostgresSchema(f, "fz")
	} else {
		db, _ = testenv.MySQLDatabase(f, "fz")
	}
	if err := migrations.InstallFunctions(f.Context(), db, d); err != nil {
		f.Fatal(err)
	}
	stmt, err := db.Prepare("SELECT once_parse(" + ph(d, 1) + ", " + ph(d, 2) + ")")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { stmt.Close() })
	f.Fuzz(func(t *testing.T, s string, p uint8) {
		checkParse(t, d, stmt, s, p)
	})
}

// FuzzOnceParsePostgres: once_parse on PostgreSQL accepts exactly what Go
// accepts, with the same value (go test -fuzz FuzzOnceParsePostgres
// ./migrations explores beyond the seeds).
func FuzzOnceParsePostgres(f *testing.F) { fuzzParse(f, migrations.Postgres) }

// FuzzOnceParseMySQL is FuzzOnceParsePostgres on MySQL/MariaDB.
func FuzzOnceParseMySQL(f *testing.F) { fuzzParse(f, migrations.MySQL) }
