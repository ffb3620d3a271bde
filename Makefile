# mcpbench: load-test and benchmark MCP servers.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: build install release release-check image demo test test-untimed test-timed timed-build vet-idle installs test-race vet k8s-check bench bench-scale fuzz soak-engine clean peers browser prometheus interop-doc faults-doc hostile-doc

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o mcpbench ./cmd/mcpbench

# Into $(go env GOPATH)/bin (or GOBIN), stamped like build.
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/mcpbench

# Static binaries for linux, darwin and windows on amd64 and arm64, stamped
# like build, with SHA256SUMS, into .run/release.
release:
	VERSION=$(VERSION) COMMIT=$(COMMIT) GO=$(GO) ./scripts/release/release.sh

# The release's own check, outside make test (the cross builds of a cold
# cache take minutes): every target, into a folder that goes after.
release-check:
	out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && OUT=$$out VERSION=v0.0.0-check COMMIT=$(COMMIT) GO=$(GO) ./scripts/release/release.sh

# The container image (static binary, non-root, CA certificates, no shell)
# as an OCI layout and a tarball in .run/image, without a container daemon.
# scripts/k8s/Dockerfile builds the same where a daemon is.
image:
	$(GO) run ./scripts/image -version $(VERSION) -commit $(COMMIT) -out .run/image

# A sweep against the bundled reference server (or MCPBENCH_URL), reports
# in .run/reports.
demo: build
	./scripts/demo.sh

# The sharded Job of scripts/k8s run on a real one-node Kubernetes on
# loopback (built from source, cached in .run/k8s), checked against the
# bundled server's count, then taken down. Root only; not part of test.
# docs/sharding.md, "Checked on a real cluster".
k8s-check:
	./scripts/k8s/check.sh

# The whole test suite; CI runs exactly this. The interop matrix needs the
# TypeScript reference server from npm, and the HTML report tests headless
# Chromium, so both are installed first and required. Two lanes run at
# once (CONTRIBUTING.md, "The two lanes"). The timed lane, at normal
# priority, runs the packages whose tests measure the machine (knees,
# schedules, session rates: TIMED) one at a time, as they always did. The
# untimed lane runs what checks no figure a busy machine changes: the other
# packages, UNTIMED_P at a time, and cmd/mcpbench's tests whose first
# statement is t.Parallel() (end-to-end runs judged by counts, files and
# exit codes), TEST_PARALLEL at a time. It runs as SCHED_IDLE, on the CPU
# the timed lane leaves: the timed tests wait on servers' sleeps most of
# the time, and a timed test that wakes takes its core back at once.
# scripts/slowest-tests.sh lists where the time goes from go test -json;
# scripts/time-suite.sh times this target on fresh clones.
TIMED    := bench cmd/mcpbench dashboard harness scripts/action workload
UNTIMED_P ?= 2
# The untimed lane's longest packages, started first (go test runs the
# packages it is given in their order, P at a time): started last, the
# longest of them was the suite's tail.
UNTIMED_FIRST := cmd/mcpbench hostile interop report
TEST_PARALLEL ?= 6
# SCHED_IDLE where util-linux's chrt is, else the lowest nice.
IDLE := $(shell command -v chrt >/dev/null 2>&1 && echo chrt --idle 0 || echo nice -n 19)
# make test builds everything one way, the way the image and the Action
# build mcpbench (static, -trimpath): vet, the test binaries and the
# binaries tests build then share one compile cache. On a cold cache that
# saves compiling the standard library and every module a second time
# (those builds took 83 s after vet and the test binaries, 3 s with this).
BUILD_ENV := GOFLAGS="$(GOFLAGS) -trimpath" CGO_ENABLED=0
TEST_ENV := $(BUILD_ENV) MCPBENCH_REQUIRE_PEERS=1 MCPBENCH_REQUIRE_BROWSER=1 MCPBENCH_REQUIRE_PROMETHEUS=1
# go test's own vet (a subset of go vet's checks) is off: vet-idle runs
# every check on every package, and the subset's facts for all the
# dependencies cost 52 s of CPU on a cold cache (go test -debug-trace).
TEST_FLAGS := -vet=off -count=1 -timeout 30m -parallel $(TEST_PARALLEL)
test:
	@$(MAKE) --no-print-directory -j 3 -O test-untimed test-timed

test-untimed: installs vet-idle
	$(TEST_ENV) MCPBENCH_TEST_LANE=untimed $(IDLE) $(GO) test -p $(UNTIMED_P) $(TEST_FLAGS) $(addprefix ./,$(addsuffix /,$(UNTIMED_FIRST))) $$($(GO) list ./... | grep -v $(foreach p,$(TIMED) $(UNTIMED_FIRST),-e '/$(p)$$'))
test-timed: installs timed-build
	$(TEST_ENV) MCPBENCH_TEST_LANE=timed $(GO) test -p 1 $(TEST_FLAGS) $(TIMED_PKGS)

# On a fresh clone, compiling is most of the work before the first test:
# the timed lane compiles its packages while the installs wait on npm's
# and apt's downloads, and vet, as SCHED_IDLE, goes on the CPU that leaves
# (finding most packages compiled by then) before the untimed lane.
TIMED_PKGS = $(addprefix ./,$(addsuffix /,$(TIMED)))
timed-build:
	@$(TEST_ENV) $(GO) test -vet=off -count=1 -exec true $(TIMED_PKGS) >/dev/null
vet-idle:
	@$(IDLE) $(MAKE) --no-print-directory vet
# The installs stay one after another: Chromium and Prometheus both take
# apt's lock.
installs:
	@$(MAKE) --no-print-directory peers
	@$(MAKE) --no-print-directory browser
	@$(MAKE) --no-print-directory prometheus

# Third-party MCP servers for the interop matrix, pinned, into .run/peers.
peers:
	./scripts/install-peers.sh

# Headless Chromium from the distribution, for the HTML report tests.
browser:
	./scripts/install-chromium.sh

# Prometheus from the distribution, for the remote-write output's test.
prometheus:
	./scripts/install-prometheus.sh

# Regenerates docs/interop.md from a run of the interop matrix, of the
# conformance harness's client scenarios (a section after the matrix) and
# of the differential matrix (the last section).
interop-doc: peers
	MCPBENCH_REQUIRE_PEERS=1 MCPBENCH_INTEROP_OUT=$(CURDIR)/docs/interop.md $(GO) test -count=1 -run TestInteropMatrix ./bench/
	MCPBENCH_REQUIRE_PEERS=1 MCPBENCH_INTEROP_OUT=$(CURDIR)/docs/interop.md $(GO) test -count=1 -run TestConformanceClients ./cmd/mcpbench/
	MCPBENCH_REQUIRE_PEERS=1 MCPBENCH_INTEROP_OUT=$(CURDIR)/docs/interop.md $(GO) test -count=1 -run TestDifferentialMatrix ./interop/

# Regenerates docs/faults.md from a run of the fault matrix.
faults-doc:
	MCPBENCH_FAULTS_OUT=$(CURDIR)/docs/faults.md $(GO) test -count=1 -run TestFaultMatrix ./bench/

# Regenerates docs/hostile.md from a run of the hostile-server suite (the
# whole hostile package: servers, report files, logs).
hostile-doc:
	MCPBENCH_HOSTILE_OUT=$(CURDIR)/docs/hostile.md $(GO) test -count=1 ./hostile/

# Every fuzz target for FUZZTIME each, one at a time (go test -fuzz takes
# one target per run). make fuzz FUZZTIME=30s for a quick pass.
FUZZTIME ?= 5m
FUZZ_TARGETS := \
	./mcp/:FuzzSSEReader ./mcp/:FuzzClassify ./internal/jsonscan/:FuzzMembers ./mcp/:FuzzParseMemo ./internal/h1/:FuzzWireAnswer \
	./report/:FuzzReadReports ./logscan/:FuzzParseStatsLine ./logscan/:FuzzWatchFeed \
	./sweep/:FuzzParseRange ./cmd/mcpbench/:FuzzParseShard ./cmd/mcpbench/:FuzzFlagValues \
	./toolschema/:FuzzGenerate ./toolschema/:FuzzDecode \
	./mcp/:FuzzLineReader ./workload/:FuzzParseMix ./workload/:FuzzParseScenarios ./workload/:FuzzDataRows \
	./mcp/:FuzzClientRequestsFile ./bench/:FuzzMergeEncoded ./mcp/:FuzzWireMatch \
	./internal/h1/:FuzzParseHead ./internal/h1/:FuzzChunked ./internal/h1/:FuzzStreamEnd ./internal/h1/:FuzzBodyMatch

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# The engine's randomized differential test (mcp/engine_random_test.go) at
# length: MCPBENCH_ENGINE_REQUESTS requests checked in all, each seed on
# the event loops, the direct engine's goroutines and net/http,
# MCPBENCH_ENGINE_PER_SEED (5000) requests each, from seed
# MCPBENCH_ENGINE_SEED_FROM (1), MCPBENCH_ENGINE_PAR (8) seeds at once. It
# prints the requests checked, the seeds and the failures, each with the
# command that reruns its seed. The seeds wait on the server's pauses much
# of the time: on 2 cores 8 at once checked 2,034/s, 4 1,804/s, 2 1,510/s.
MCPBENCH_ENGINE_REQUESTS ?= 10000000
MCPBENCH_ENGINE_PAR ?= 8
soak-engine:
	MCPBENCH_ENGINE_REQUESTS=$(MCPBENCH_ENGINE_REQUESTS) MCPBENCH_ENGINE_PAR=$(MCPBENCH_ENGINE_PAR) $(GO) test -count=1 -timeout 0 -run 'TestEngineRandom$$' -v ./mcp/

test-race:
	$(GO) test -count=1 -race -timeout 30m ./...

# gofmt, go mod tidy and go vet: CI fails on any of them.
vet:
	@$(GO) mod tidy -diff >/dev/null || { $(GO) mod tidy -diff; echo "go.mod/go.sum not tidy: run go mod tidy"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(BUILD_ENV) $(GO) vet ./...

# The Go benchmarks of the hot path, then mcpbench against wrk and hey.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./mcp/ ./bench/ ./toolschema/ ./workload/
	./scripts/bench-peers.sh

# Memory at -c 1000 over 1 and 10 minutes, and 10,000 workers (about 12 min).
bench-scale:
	./scripts/bench-scale.sh
	./scripts/bench-idle-sessions.sh
	./scripts/bench-idle-sessions.sh --get-stream

clean:
	rm -rf mcpbench .run
