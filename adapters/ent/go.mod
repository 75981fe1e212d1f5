module github.com/once-go/once/adapters/ent

go 1.26.0

require (
	entgo.io/ent v0.14.5
	github.com/once-go/once v0.2.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/google/uuid v1.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.59.0 // indirect
)
