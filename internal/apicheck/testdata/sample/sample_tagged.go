//go:build sometag

package sample

// Tagged is exported only in builds with sometag; its doc names
// shortLeases.
func Tagged() {}

func shortLeases() {}
