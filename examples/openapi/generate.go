package main

// The servers are generated from openapi.yaml by the generators this
// module's go.mod names as tools; the generated code is committed.
//go:generate go tool oapi-codegen -config oapi/cfg.yaml openapi.yaml
//go:generate go tool ogen --target ogenapi --package ogenapi --clean openapi.yaml
