package envlease_test

import (
	"fmt"
	"os"

	"github.com/once-go/once/lease/envlease"
)

// In a StatefulSet pod the Downward API sets POD_INDEX from the pod's
// apps.kubernetes.io/pod-index label (see the package documentation);
// here it is set by hand. A second StatefulSet sharing the ID space takes
// offset 100.
func ExamplePodIndex() {
	os.Setenv("POD_INDEX", "3")
	id, err := envlease.PodIndex("POD_INDEX", 100).MachineID()
	fmt.Println(id, err)
	// Output: 103 <nil>
}
