package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestManifests sends every object of the StatefulSet and Deployment
// manifests to the test API server as a server-side dry run: the server
// validates them in full (the Downward API's label subscript, the emptyDir,
// the RBAC rules) without storing them.
func TestManifests(t *testing.T) {
	_, cs := kubeconfig(t)
	ns := namespace(t, cs)
	for _, file := range []string{"../statefulset.yaml", "../deployment.yaml"} {
		kinds := map[string]int{}
		for _, obj := range decodeAll(t, file) {
			kind, err := create(cs, ns, obj)
			assert.NoError(t, err, "%s: %s", file, kind)
			kinds[kind]++
		}
		t.Logf("%s: %v accepted", file, kinds)
	}
}

// decodeAll decodes the YAML documents of file into typed objects.
func decodeAll(t *testing.T, file string) []any {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var out []any
	rd := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := rd.Read()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err, "%s", file)
		if strings.TrimSpace(string(doc)) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		require.NoError(t, err, "%s", file)
		out = append(out, obj)
	}
}

// create sends obj to the server in ns as a dry run.
func create(cs kubernetes.Interface, ns string, obj any) (string, error) {
	ctx, dry := context.Background(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	var err error
	switch o := obj.(type) {
	case *corev1.ServiceAccount:
		_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, o, dry)
	case *corev1.Secret:
		_, err = cs.CoreV1().Secrets(ns).Create(ctx, o, dry)
	case *corev1.Service:
		_, err = cs.CoreV1().Services(ns).Create(ctx, o, dry)
	case *rbacv1.Role:
		_, err = cs.RbacV1().Roles(ns).Create(ctx, o, dry)
	case *rbacv1.RoleBinding:
		_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, o, dry)
	case *appsv1.Deployment:
		_, err = cs.AppsV1().Deployments(ns).Create(ctx, o, dry)
	case *appsv1.StatefulSet:
		_, err = cs.AppsV1().StatefulSets(ns).Create(ctx, o, dry)
	default:
		return fmt.Sprintf("%T", obj), fmt.Errorf("no test for this kind")
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", obj), "*"), err
}
