// Package entbench is the ent client of the ORM benchmark (cmd/ormbench),
// generated from ./schema by entgo.io/ent v0.14.5:
//
//	cd bench/internal/entbench && go run -mod=mod entgo.io/ent/cmd/ent generate ./schema
//	cd ../.. && go mod tidy
//
// (-mod=mod: ent's generator needs modules that the generated code does
// not, so go.mod does not list them.) Everything in this directory except generate.go and schema/ is generated.
package entbench

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate ./schema
