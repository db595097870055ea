# Lockstep's build and test entry points. `make test` is the README's test
# command and what CI (.ci/run) runs: on a fresh Debian machine it installs
# what the tests need (redis-server, redis-cli for the Cluster tests,
# chromium, a CJK font, nodejs, python3-redis, and the real-client tests' npm
# packages from their lockfile), then vets and runs every test with the
# race detector, and the page script's unit tests under node --test.

GO ?= go

.PHONY: test deps vet js-test fuzz run bench templ-check screenshot

# -parallel 4: the browser tests (package web) share one Chromium, each in a
# tab of its own, and mostly wait on it and on the network; four at a time
# keep a 2-core machine busy where the default (GOMAXPROCS, 2) leaves it idle.
# The fuzz targets run here on their seed corpora (testdata/fuzz and their
# f.Add inputs), as go test runs every fuzz target; fuzzing itself, new
# inputs for minutes, is `make fuzz` (docs/testing.md: the time budget).
# -vet=all: go test runs every check of `go vet` (not only its short default
# list) on every package, those without tests too, on the packages it
# builds for the race detector anyway; a separate `go vet ./...` compiled
# everything a second time, without -race: 115 CPU-s of a cold run
# (docs/testing.md). `make vet` stays for a vet alone.
# ./web first: go test runs packages in the order they are named, two at a
# time, and ./... names web (its browser tests, the longest package by far)
# last, so it started once most others were done and the run waited for it
# alone; named first, it runs beside all the others (go test -json's start
# times show the order).
test: deps templ-check js-test
	$(GO) test -race -vet=all -count=1 -parallel 4 -timeout 20m ./web ./...

# fuzz runs each fuzz target on top of its seed corpus in testdata/fuzz
# (make test runs only the corpora; this takes some three CPU-minutes, most
# of it building the instrumented binaries): the lesson loader, the websocket message decoder, the
# share-link decoder of explore mode, the search-file decoder, the
# Search page's request decoder, the variant-file loader and the class
# message decoders (websocket and bus). Each run is bounded by a count of
# executions, not by a duration. With a duration, Go 1.26's fuzz
# coordinator puts a deadline on its context; when the deadline fires
# before the workers' context is cancelled, it reports the deadline as the
# run's failure, a bare "context deadline exceeded" with no failing input
# (golang/go#75804, fixed in Go 1.27; a busy CPU widens the window). It
# failed CI once. A count sets no deadline. The counts take some 10 to 20
# seconds each on a 2-core machine; the inputs of the local fuzz cache
# (GOCACHE/fuzz) count towards them. FUZZTIME overrides them all: give a
# count (FUZZTIME=200000x); a duration brings the race back on Go 1.26.
FUZZ_LOAD ?= 10000x
FUZZ_MESSAGE ?= 30000x
FUZZ_SHARE ?= 50000x
FUZZ_SEARCH ?= 5000x
FUZZ_SEARCH_REQUEST ?= 5000x
FUZZ_VARIANT ?= 5000x
FUZZ_CLASS ?= 10000x
fuzz:
	$(GO) test ./sim -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_LOAD))
	$(GO) test ./web -run '^$$' -fuzz '^FuzzParseClientMessage$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_MESSAGE))
	$(GO) test ./explore -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_SHARE))
	$(GO) test ./search -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_SEARCH))
	$(GO) test ./web -run '^$$' -fuzz '^FuzzSearchRequest$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_SEARCH_REQUEST))
	$(GO) test ./sim -run '^$$' -fuzz '^FuzzLoadVariant$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_VARIANT))
	$(GO) test ./web -run '^$$' -fuzz '^FuzzClassMessage$$' -fuzztime=$(or $(FUZZTIME),$(FUZZ_CLASS))

# bench measures step latency, lock calls, the embedded backend, 1,000
# sessions and a Redis fault against floors and ceilings measured in the
# same run, and prints one table (docs/performance.md). It starts its own
# redis-server on a free loopback port. Then bench/classload prints the
# classroom rows (issue 20): Lockstep server processes and, from its own
# process, a presenter and up to 10,000 students (ulimit -n 20000). Then
# bench/proxyload prints the lock-aware proxy's rows (issue 32):
# redis-benchmark and a lock/unlock loop through it against Redis directly,
# its memory per traced event and per connection (its -soak 10m run, the RSS
# of 50 clients looping lock/unlock, is not part of it).
# bench/classmem prints what a class costs in memory while it lives and
# after -class-grace drops it (issue 37).
# CLASSLOAD_FLAGS are passed to bench/classload, e.g. the code before for
# the class rows in the same run: CLASSLOAD_FLAGS='-reference FILE'
# (docs/performance.md, How to measure).
CLASSLOAD_FLAGS ?=
bench:
	@command -v redis-server >/dev/null 2>&1 || $(MAKE) deps
	$(GO) run ./bench
	$(GO) run ./bench/classload $(CLASSLOAD_FLAGS)
	$(GO) run ./bench/proxyload
	$(GO) run ./bench/classmem

vet:
	$(GO) vet ./...

# js-test runs the unit tests of the page script's ES modules (static/*.js,
# tests in static/test) with Node's built-in test runner: no npm packages,
# no build step.
NODE ?= node
js-test:
	@command -v $(NODE) >/dev/null 2>&1 || $(MAKE) deps
	$(NODE) --test static/test/*.test.js

# deps installs missing system packages with apt-get (root on Debian, or sudo):
# among them python3-redis, the redis-py that the real-client tests run with
# /usr/bin/python3 (the python3 first on PATH may be another build that does
# not see Debian's modules); then the real-client tests' npm packages,
# pinned by their lockfile, when node_modules is absent (npm writes
# .package-lock.json there last, so a cut-off install is redone), and
# axe-core, the accessibility checker package web's browser tests inject
# into the pages (web/a11y_browser_test.go), pinned by its lockfile too.
REALCLIENTS_NODE := internal/realclients/node
AXE_NODE := web/testdata/axe
deps:
	@missing=""; \
	command -v redis-server >/dev/null 2>&1 || missing="$$missing redis-server"; \
	command -v redis-cli >/dev/null 2>&1 || missing="$$missing redis-tools"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	/usr/bin/python3 -c 'import redis' >/dev/null 2>&1 || missing="$$missing python3-redis"; \
	fc-list 2>/dev/null | grep -qi "wenquanyi\|wqy" || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@[ -f $(REALCLIENTS_NODE)/node_modules/.package-lock.json ] || (cd $(REALCLIENTS_NODE) && npm ci --no-audit --no-fund)
	@[ -f $(AXE_NODE)/node_modules/.package-lock.json ] || (cd $(AXE_NODE) && npm ci --no-audit --no-fund)

run:
	$(GO) run .

# templ-check regenerates the templ components with the pinned templ and
# fails when the committed *_templ.go files differ from what it generates.
TEMPL ?= $(GO) run github.com/a-h/templ/cmd/templ@v0.3.1100
templ-check:
	$(TEMPL) generate -path templates
	git diff --exit-code -- templates

# screenshot rewrites every docs/screenshot-*.png, taken by headless
# Chromium, one test at a time (-parallel 1: the machine may be shared):
# the player at the stale-owner step, on a desk (1280x800) and a phone
# (390x844), its end card, presenter mode at 1280x800 and 1024x768, a
# class's projector at Reveal, a student's phone during a question and
# after Reveal, the course page, "Your lock" with an example and with a
# check's problems, and the live page at 1280x800 and 390x844.
screenshot: deps
	$(GO) test ./web -run 'TestBrowserScreenshots|TestBrowserPresenterLanesReadable|TestBrowserRoomClass|TestBrowserDeskLayout|TestBrowserPhonePlayer|TestBrowserEndCard|TestBrowserPageScreenshots' -count=1 -parallel 1 -update-screenshot
	$(GO) test ./live -run 'TestBrowserLive' -count=1 -update-screenshot
