package main

import "syscall"

// dieWithHold makes the kernel send CMD SIGKILL should hold die first
// (kill -9): a CMD left running would keep using the machine ID after the
// lease expires. The signal follows the thread that started CMD, which
// holdExec keeps locked until CMD has exited.
func dieWithHold(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
