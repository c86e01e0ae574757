# pushlab — `make demo` runs the whole offline loop; `make test` runs the test suite.
# Both install what they need first (scripts/bootstrap).
SWIFT ?= swift
SWIFTFLAGS ?=

.PHONY: bootstrap build release test demo bench fuzz sanitize clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(SWIFTFLAGS)

release: bootstrap
	$(SWIFT) build -c release --product pushlab $(SWIFTFLAGS)

# The CLI integration tests run the built binary, so build it before the tests.
test: bootstrap
	scripts/check-portable-paths
	$(SWIFT) build $(SWIFTFLAGS) --build-tests
	$(SWIFT) test $(SWIFTFLAGS) --skip-build --disable-swift-testing

demo: release
	.build/release/pushlab demo

bench: release
	benchmarks/run

# libFuzzer targets (Fuzz/README.md), FUZZ_SECONDS each (default 60); fails on a crash.
fuzz: bootstrap
	scripts/fuzz

# Transport, store and device tests under ASan and TSan (own scratch paths .build-asan/.build-tsan).
sanitize: bootstrap
	scripts/sanitize

clean:
	rm -rf .build
