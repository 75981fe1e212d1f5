module github.com/once-go/once/adapters/huma

go 1.26.0

require (
	github.com/danielgtaylor/huma/v2 v2.37.2
	github.com/once-go/once v0.2.0
	github.com/stretchr/testify v1.12.1
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.59.0 // indirect
)
