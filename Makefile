# PeerLearn. A fresh machine needs two commands: `make demo` and `make test`.
# Every target installs or fetches what it needs (scripts/deps.sh, scripts/fetch-data.sh).

GO        ?= go
DATA_DIR  ?= $(CURDIR)/.data
BIN       := $(CURDIR)/bin
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec

# Tests that need the datasets find them here; unset, they skip.
export PEERLEARN_DATA := $(DATA_DIR)

# Core packages: pure computation, no I/O, built and tested natively and as
# GOOS=js GOARCH=wasm under node.
CORE_DIRS := internal/f32 nn data overlay simnet topology aggregate mep initgain learn \
             evalreq selection plexus gossip
CORE_PKGS := $(foreach d,$(CORE_DIRS),$(if $(wildcard $(d)/*.go),./$(d)/...))

.PHONY: all build data deps test test-native test-wasm test-companion demo bench bench-train \
        companion bench-companion clean

all: build

deps:
	@scripts/deps.sh test companion

data: $(DATA_DIR)/.ok

$(DATA_DIR)/.ok: scripts/fetch-data.sh
	@scripts/deps.sh test
	@scripts/fetch-data.sh $(DATA_DIR)

build:
	$(GO) build -o $(BIN)/ ./cmd/...

test: deps data test-native test-wasm test-companion

test-native:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

# node runs the core packages' tests through go_js_wasm_exec.
test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 20m -exec=$(WASM_EXEC) $(CORE_PKGS)

# The GPU companion: the same tests against libtorch (Debian libtorch-dev,
# CPU; see README for a CUDA build).
test-companion: deps data
	$(GO) vet -tags torch ./gpu/
	$(GO) test -tags torch -count=1 -timeout 10m ./gpu/

companion: deps
	$(GO) build -tags torch -o $(BIN)/peerlearn-companion ./cmd/peerlearn

bench-companion: deps
	scripts/bench-companion.sh

demo: deps data build
	$(BIN)/peerlearn demo -data $(DATA_DIR)

bench: bench-train bench-companion
	$(GO) test -run '^$$' -bench . -benchtime 200ms ./internal/f32/... ./nn/...

bench-train: deps data build
	@scripts/deps.sh torch
	scripts/bench-train.sh

clean:
	rm -rf $(BIN)
