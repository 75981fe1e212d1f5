// Package supervise acts on a machine-ID lease that "once lease hold"
// holds: it tells a reader the machine ID once values with it may be made
// ([Print]), or runs a command with it and stops that command's processes
// before the lease can pass to another holder ([Exec]; on Linux under a
// supervisor process that adopts the whole process tree).
//
// A program that uses [Exec] on Linux must import this package: its init
// runs the supervisor when the program is started as one.
package supervise
