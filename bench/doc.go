// Package bench holds the benchmarks of once against peer ID libraries.
//
// It is a separate module (its own go.mod, built in the tree through
// go.work) so that the peer libraries never enter the dependencies of
// github.com/once-go/once. The Go benchmarks live in bench_test.go and its
// companions; cmd/dbbench measures primary-key cost in PostgreSQL and MariaDB,
// cmd/ormbench the same keys inserted through GORM, bun and ent.
// See BENCHMARKS.md for commands and results. The test rigs (fault suite,
// fault soak) are in the tests/ module.
package bench
