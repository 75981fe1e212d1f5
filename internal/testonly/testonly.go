// Package testonly gives the tests of this module's packages what package
// lease offers only in builds with the oncetest tag: short leases. Only
// test code imports it; without the tag it still compiles, and a test that
// needs short leases skips, saying the command to run, so that a plain
// go test ./... passes.
package testonly
