//go:build etcd

package coord

import (
	"strings"
	"testing"
)

func TestEtcdConfig(t *testing.T) {
	c, err := etcdConfig("http://user:secret@10.0.0.1:2379, 10.0.0.2:2379 ,http://[::1]:2379")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Endpoints, " ") != "http://10.0.0.1:2379 http://10.0.0.2:2379 http://[::1]:2379" ||
		c.Username != "user" || c.Password != "secret" || c.TLS != nil {
		t.Errorf("config %+v", c)
	}
	if c, err := etcdConfig("https://etcd.example:2379"); err != nil || c.TLS == nil {
		t.Errorf("https: %v, TLS %v", err, c.TLS)
	}
}
