# mcpbench: load-test and benchmark MCP servers.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: build demo test test-race vet bench fuzz clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o mcpbench ./cmd/mcpbench

# A sweep against the bundled reference server (or MCPBENCH_URL), reports
# in .run/reports.
demo: build
	./scripts/demo.sh

# The whole test suite; CI runs exactly this.
test: vet
	$(GO) test -count=1 -timeout 20m ./...

test-race:
	$(GO) test -count=1 -race -timeout 30m ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./mcp/ ./bench/

clean:
	rm -rf mcpbench .run
