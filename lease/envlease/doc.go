// Package envlease is a deterministic [lease.Strategy] that takes the
// machine ID from an environment variable: the trailing decimal digits of
// its value plus an optional offset. In Kubernetes, a StatefulSet pod's name
// ends in its ordinal ("web-3"); expose it with the Downward API:
//
//	env:
//	- name: POD_NAME
//	  valueFrom: {fieldRef: {fieldPath: metadata.name}}
//
// and use envlease.New("POD_NAME", 0). The StatefulSet guarantees that no
// two live pods share an ordinal; give each StatefulSet sharing an ID space
// its own offset so their ranges do not overlap.
//
// There is no coordinator: Acquire always yields the same ID, Renew always
// succeeds and Release does nothing. A missing, non-numeric or out-of-range
// value fails with [lease.ErrConfig] and a message naming the variable and
// its value.
package envlease
