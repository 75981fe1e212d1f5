# Entry points for contributors (CONTRIBUTING.md). Each target runs a
# script under .ci/, which is what CI runs too.
#
#   make fast     the fast path: -short tests of the library, no services (seconds)
#   make lint     gofmt, go vet and staticcheck over every module
#   make test     the README's go test ./... in every module (services when reachable)
#   make safety   the safety suite: the hand-off and fault cases (-tags oncetest) of lease/
#                 and of the tests/ module (fault proxy, fault suite, guard suite, soak rig)
#   make ci       the full CI (.ci/run): starts the services, requires them, tests everything
#
# Every target writes go.work first (it is not committed; see RELEASING.md).

SHELL := /bin/bash
.PHONY: fast lint test safety ci gowork

gowork:
	@bash .ci/gowork

fast: gowork
	bash .ci/fast

lint: gowork
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted" >&2; exit 1; fi
	source .ci/layout && for m in "$${modules[@]}"; do echo "go vet: $$m"; (cd "$$m" && go vet ./...) || exit 1; done
	cd cmd/once && go vet -tags etcd,kubernetes ./...
	bash .ci/lint

test: gowork
	source .ci/layout && for m in "$${modules[@]}"; do echo "=== go test: $$m"; (cd "$$m" && go test -count=1 ./...) || exit 1; done

safety: gowork
	go test -tags oncetest -count=1 -p 1 ./lease/...
	cd tests && go test -tags oncetest -count=1 -p 1 ./...

ci:
	bash .ci/run
