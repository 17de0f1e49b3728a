# agent-eval — see README.md and docs/.
GO       ?= go
BIN      ?= bin/agent-eval
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/agent-eval/agent-eval/internal/version.Version=$(VERSION)

.PHONY: build demo screenshot test test-short race lint fmt vet golden fuzz bench tidy clean release docs

## build: a static binary in bin/
build:
	@echo "building $(BIN) (agent-eval $(VERSION), static, $$($(GO) env GOVERSION)); a first build compiles some 650 packages, the Anthropic SDK and the standard library most of it: about 1.5 minutes on 2 quiet cores, several when they are busy (docs/quickstart.md#what-the-first-run-costs)"
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/agent-eval

## release: reproducible static archives for linux and darwin on amd64 and
## arm64 in dist/ (binary, README, CHANGELOG, man pages, completions) and
## dist/checksums.txt, stamped with VERSION (scripts/release.sh; GNU tar)
## (RELEASE_TARGETS="linux/amd64 linux/arm64" for fewer)
RELEASE_TARGETS ?=
release:
	VERSION='$(VERSION)' GO='$(GO)' scripts/release.sh $(RELEASE_TARGETS)

## docs: rewrite the generated references, docs/cli and docs/configuration.md
docs:
	$(GO) test ./internal/cli -run TestCLIDocs -count=1 -update
	$(GO) test ./internal/config -run TestConfigurationDoc -count=1 -update

## demo: the quick start — install the pinned Claude Code CLI (and bubblewrap
## and socat for its sandbox, as root on Debian; else say how), build, and run
## examples/quickstart with the real CLI and the built-in fake model (no API key)
demo: build
	scripts/install-sandbox.sh
	./bin/agent-eval run -c examples/quickstart/eval.yaml --fake-model --score --agent-bin "$$(scripts/install-claude.sh)"

## screenshot: rewrite docs/img/report.png, the README's picture of report.html:
## the quick start run offline as make demo runs it (the pinned Claude Code, the
## fake model, run id demo), its report shot by headless Chromium in a fixed
## 1280x1100 viewport (internal/report TestScreenshot; scripts/install-chromium.sh)
SHOT_RUNS := .cache/screenshot-runs
screenshot: build
	rm -rf $(SHOT_RUNS)
	./bin/agent-eval run -c examples/quickstart/eval.yaml --fake-model --score --runs-dir $(SHOT_RUNS) --run-id demo --agent-bin "$$(scripts/install-claude.sh)"
	$(GO) test ./internal/report -run '^TestScreenshot$$' -count=1 -v -screenshot "$$PWD/$(SHOT_RUNS)/quickstart/demo/report.html" -screenshot-out "$$PWD/docs/img/report.png"
	$(GO) test ./internal/view -run '^TestScreenshot$$' -count=1 -v -screenshot -screenshot-out "$$PWD/docs/img/view.png"

## test: what CI runs (docs/development.md). Installs the pinned Claude
## Code, Codex, Gemini and OpenCode CLIs (Node.js 20+ and npm needed) for the end-to-end
## tests first, and the pinned Harbor and MLflow (Python 3.12+; without one their
## tests skip here and fail under CI=true, which installs it). go test runs under gotestsum, which ends with the count of
## tests, skips and failures and lists each skipped and failed test (a
## skip for a missing dependency is a failure under CI=true).
GOTESTSUM := gotest.tools/gotestsum@v1.13.0
test: vet fmt
	CLAUDE_BIN="$$(scripts/install-claude.sh)" OPENCODE_BIN="$$(scripts/install-opencode.sh)" \
	  CODEX_BIN="$$(scripts/install-codex.sh)" GEMINI_BIN="$$(scripts/install-gemini.sh)" \
	  HARBOR_BIN="$$(scripts/install-harbor.sh || true)" MLFLOW_BIN="$$(scripts/install-mlflow.sh || true)" \
	  $(GO) run $(GOTESTSUM) --format pkgname -- -race -count=1 -timeout 30m ./...

## test-short: unit tests only, without the real Claude Code CLI
test-short:
	$(GO) test -short -count=1 ./...

race: test

## lint: gofmt, go vet and staticcheck
lint: fmt vet
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

fmt:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

## golden: rewrite golden files and examples/quickstart from the current code
golden:
	$(GO) test ./... -run 'Corpus|Golden' -update
	$(GO) run ./cmd/agent-eval init --force examples/quickstart

## fuzz: fuzz the eval.yaml loader for FUZZTIME (new finds land in testdata/fuzz)
FUZZTIME ?= 60s
fuzz:
	$(GO) test ./internal/config -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME)

## bench: Go benchmarks, the hook timed as a whole process against a minimal
## Go binary (bench/hook.sh), run's overhead over bare claude at saturation
## (bench/overhead.sh) and at scale (bench/scale.sh)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	bench/hook.sh
	bench/overhead.sh
	bench/scale.sh

tidy:
	$(GO) mod tidy -diff

clean:
	rm -rf bin dist
