# Lockstep's build and test entry points. `make test` is the README's test
# command and what CI (.ci/run) runs: on a fresh Debian machine it installs
# what the tests need (redis-server, chromium and a CJK font), then
# vets and runs every test with the race detector.

GO ?= go

.PHONY: test deps vet run bench

test: deps vet
	$(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...

# deps installs missing system packages with apt-get (root on Debian, or sudo).
deps:
	@missing=""; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	fc-list 2>/dev/null | grep -qi "wenquanyi\|wqy" || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

run:
	$(GO) run .
