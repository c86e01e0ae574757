# pushlab — `make demo` runs the whole offline loop; `make test` runs the test suite.
# Both install what they need first (scripts/bootstrap).
SWIFT ?= swift
SWIFTFLAGS ?=

.PHONY: bootstrap build release test demo bench fuzz sanitize clean install uninstall

PREFIX ?= /usr/local

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(SWIFTFLAGS)

release: bootstrap
	$(SWIFT) build -c release --product pushlab $(SWIFTFLAGS)

# The CLI integration tests run the built binary, so build it before the tests. The run fails on
# any failure and on any skip not in Tests/skip-allowlist.txt; it ends with the skipped and the
# slowest tests and a plain "N passed, N failed" line (Tests/tools/run-tests, Tests/README.md).
test: bootstrap
	scripts/check-portable-paths
	scripts/check-target-imports
	scripts/check-wire-names
	scripts/check-function-length
	$(SWIFT) build $(SWIFTFLAGS) --build-tests
	SWIFT="$(SWIFT)" Tests/tools/run-tests $(SWIFTFLAGS)

demo: release
	.build/release/pushlab demo

bench: release
	PUSHLAB_BENCH=1 benchmarks/run

# libFuzzer targets (Fuzz/README.md), FUZZ_SECONDS each (default 60); fails on a crash.
fuzz: bootstrap
	scripts/fuzz

# Transport, store and device tests under ASan and TSan (own scratch paths .build-asan/.build-tsan);
# under ASan also the Redis client and Redis outage tests, relay nodes included.
sanitize: bootstrap
	scripts/sanitize

# The binary, its offline files (share/pushlab), man pages and shell completions under PREFIX;
# every file written is listed in PREFIX/share/pushlab/install-manifest.txt.
install: release
	scripts/install $(PREFIX)

# Removes exactly what install wrote (its manifest); never the send history, relay data, profiles
# or saved pushes ($XDG_DATA_HOME/pushlab, $XDG_CONFIG_HOME/pushlab), and says what it left.
uninstall:
	scripts/uninstall $(PREFIX)

clean:
	rm -rf .build
