module github.com/once-go/once/adapters/huma

go 1.26.0

replace github.com/once-go/once => ../..

require (
	github.com/danielgtaylor/huma/v2 v2.37.2
	github.com/once-go/once v0.0.0-00010101000000-000000000000
)

require golang.org/x/crypto v0.59.0 // indirect
