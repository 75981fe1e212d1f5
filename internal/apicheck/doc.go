// Package apicheck checks a package's public API from its source: how many
// names it exports (Exports), and that the documentation a pkg.go.dev reader
// sees names no unexported code (Docs). Tests of the module call it.
package apicheck
