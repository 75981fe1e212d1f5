package main
func leaseCommands() []*command { return nil }
func driverHelp() string { return "" }
