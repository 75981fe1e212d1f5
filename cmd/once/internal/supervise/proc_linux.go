package supervise

import "syscall"

// dieWithHold makes the kernel send CMD SIGKILL should its parent, the
// supervisor, die first (kill -9): a CMD left running would keep using the
// machine ID after the lease expires. The signal follows the thread that
// started CMD: the supervisor's main thread, locked for its lifetime.
func dieWithHold(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
