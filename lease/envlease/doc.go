// Package envlease is a deterministic [driver.Strategy] that takes the
// machine ID from an environment variable, plus an optional offset. In
// Kubernetes, a StatefulSet pod's ordinal is that ID, and the Downward API
// puts it in an environment variable in one of two ways.
//
// The pod-index label (Kubernetes 1.28 and later): the StatefulSet
// controller labels each pod apps.kubernetes.io/pod-index=<ordinal>.
//
//	env:
//	- name: POD_INDEX
//	  valueFrom:
//	    fieldRef: {fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}
//
// and envlease.PodIndex("POD_INDEX", 0). The whole value must be decimal
// digits; an empty value (no such label: an older cluster, or a pod no
// StatefulSet made) is refused with a message saying so.
//
// The pod name, on any version: a StatefulSet pod's name ends in its
// ordinal ("web-3").
//
//	env:
//	- name: POD_NAME
//	  valueFrom: {fieldRef: {fieldPath: metadata.name}}
//
// and envlease.New("POD_NAME", 0), which takes the trailing decimal digits.
//
// The label is read through an environment variable, not a downwardAPI
// volume file: the controller sets it when it creates the pod and it never
// changes for that pod, and the kubelet resolves the variable when the
// container starts, so the value a process reads is final; a volume file
// serves values that change while the pod runs, and would add a file to
// mount and read for nothing.
//
// The StatefulSet guarantees that no two live pods share an ordinal; give
// each StatefulSet sharing an ID space its own offset so their ranges do
// not overlap. (A Deployment's pods have no ordinal: lease them from a
// coordinator, such as lease/k8slease.)
//
// There is no coordinator: Acquire always yields the same ID, Renew always
// succeeds and Release does nothing. A missing, non-numeric or
// out-of-range value fails with [driver.ErrConfig] and a message naming the
// variable and its value.
package envlease
