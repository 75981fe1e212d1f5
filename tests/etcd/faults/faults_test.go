// Package faults_test runs the root module's lease fault suite
// (tests/faultsuite) on etcd: tests/faultsuite runs it on SQL and Redis and
// does not require the etcd client.
package faults_test

import (
	"testing"

	"github.com/once-go/once/tests/faultsuite"
)

func TestMain(m *testing.M) {
	faultsuite.Main(m, []faultsuite.Coordinator{etcdCoordinator("etcd")})
}

func TestContenders600(t *testing.T)           { faultsuite.Contenders600(t) }
func TestHandoffSkew(t *testing.T)             { faultsuite.HandoffSkew(t) }
func TestHandoffSkewBeyondMargin(t *testing.T) { faultsuite.HandoffSkewBeyondMargin(t) }
func TestHandoffRelease(t *testing.T)          { faultsuite.HandoffRelease(t) }
func TestHandoffForcedFree(t *testing.T)       { faultsuite.HandoffForcedFree(t) }
func TestPartitionShort(t *testing.T)          { faultsuite.PartitionShort(t) }
func TestPartitionLong(t *testing.T)           { faultsuite.PartitionLong(t) }
func TestBlackholeHang(t *testing.T)           { faultsuite.BlackholeHang(t) }
func TestDroppedReply(t *testing.T)            { faultsuite.DroppedReply(t) }
func TestKillHolder(t *testing.T)              { faultsuite.KillHolder(t) }
func TestSuspendHolder(t *testing.T)           { faultsuite.SuspendHolder(t) }
func TestCrashLoop(t *testing.T)               { faultsuite.CrashLoop(t) }
func TestCoordinatorRestart(t *testing.T)      { faultsuite.CoordinatorRestart(t) }
func TestDataLoss(t *testing.T)                { faultsuite.DataLoss(t) }
