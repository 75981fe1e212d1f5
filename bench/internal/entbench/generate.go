// Package entbench is the ent client of the ORM benchmark (cmd/ormbench),
// generated from ./schema by entgo.io/ent v0.14.5:
//
//	cd bench/internal/entbench && go run entgo.io/ent/cmd/ent generate ./schema
//
// Everything in this directory except generate.go and schema/ is generated.
package entbench

//go:generate go run entgo.io/ent/cmd/ent generate ./schema
