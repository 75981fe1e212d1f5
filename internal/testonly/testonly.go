// Package testonly gives the tests of this module's packages what package
// lease offers only in builds with the oncetest tag: short leases. Only
// test code imports it; without the tag it still compiles (go vet, editors),
// and a test that needs short leases fails with the command to run instead.
package testonly
