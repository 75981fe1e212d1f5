module github.com/once-go/once/lease/etcdlease

go 1.26.0

require (
	github.com/once-go/once v0.1.0
	go.etcd.io/etcd/api/v3 v3.7.3
	go.etcd.io/etcd/client/v3 v3.7.3
	go.uber.org/zap v1.27.1
	google.golang.org/grpc v1.83.2
)
