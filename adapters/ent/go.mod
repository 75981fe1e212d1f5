module github.com/once-go/once/adapters/ent

go 1.26.0

require (
	entgo.io/ent v0.14.5
	github.com/once-go/once v0.1.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
)
