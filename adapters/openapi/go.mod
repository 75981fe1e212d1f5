module github.com/once-go/once/adapters/openapi

go 1.26.0

require (
	github.com/dlclark/regexp2 v1.11.0
	github.com/getkin/kin-openapi v0.153.0
	github.com/once-go/once v0.2.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
