module github.com/once-go/once/bench

go 1.26

replace github.com/once-go/once => ../

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/google/uuid v1.6.0
	github.com/oklog/ulid/v2 v2.1.2
	github.com/rs/xid v1.6.0
	github.com/segmentio/ksuid v1.0.4
	github.com/sony/sonyflake v1.2.0
	go.jetify.com/typeid v1.3.0
)

require (
	github.com/gofrs/uuid/v5 v5.2.0 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
)
