// swift-tools-version:6.0
import PackageDescription

// Module layout: docs/architecture.md. Dependencies point downwards.
let package = Package(
    name: "pushlab",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pushlab", targets: ["pushlab"]),
    ],
    targets: [
        .target(
            name: "CPushLab",
            linkerSettings: [
                .linkedLibrary("curl"),
                .linkedLibrary("ssl"),
                .linkedLibrary("crypto"),
                .linkedLibrary("nghttp2"),
                .linkedLibrary("event_core"),
                .linkedLibrary("event_openssl"),
                .linkedLibrary("event_pthreads"),
                .linkedLibrary("sqlite3"),
                .linkedLibrary("hiredis"),
                .linkedLibrary("yaml"),
                // curl_shim.c overrides nghttp2_submit_rst_stream to drop the redundant
                // RST_STREAM libcurl 7.88 sends after every bodiless response (see there); the
                // override only takes effect if the executable exports it.
                .unsafeFlags(["-Xlinker", "--export-dynamic-symbol=nghttp2_submit_rst_stream"]),
            ]
        ),
        .target(name: "PushCore"),
        .target(name: "PushAuth", dependencies: ["PushCore", "CPushLab", "PushHTTP"]),
        .target(name: "PushHTTP", dependencies: ["CPushLab"]),
        // The one SQLite wrapper every store uses (history, collector, App Group, gateway records).
        .target(name: "PushStore", dependencies: ["CPushLab"]),
        .target(name: "PushSend", dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushStore"]),
        // The Redis client (hiredis) and the cluster state several relay nodes share through it.
        .target(name: "PushRedis", dependencies: ["CPushLab", "PushCore", "PushAuth", "PushHTTP"]),
        .target(name: "PushDevice", dependencies: ["PushCore", "PushHTTP", "PushStore"]),
        .target(name: "PushMetrics", dependencies: ["PushCore", "PushHTTP", "PushStore"]),
        .target(name: "PushGateway", dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushStore"]),
        // The push gateway a team runs (docs/relay.md): API, durable queue, workers, webhooks.
        .target(name: "PushRelay", dependencies: ["CPushLab", "PushCore", "PushAuth", "PushHTTP", "PushSend", "PushStore", "PushRedis"]),
        // The web console (/console): live push log, device view, send form, metrics charts.
        // Its page, script and style are files under Assets/, compiled into the binary.
        .target(name: "PushConsole", dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushSend", "PushGateway", "PushDevice", "PushMetrics",
                                                   "PushRelay"],
                resources: [.embedInCode("Assets/console.html"), .embedInCode("Assets/app.js"), .embedInCode("Assets/app.css")]),
        // Wires every part into one offline lab: the demo and the delivery-metric experiment.
        .target(name: "OfflineLab", dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushSend", "PushGateway", "PushDevice", "PushMetrics", "PushRelay"]),
        .executableTarget(
            name: "pushlab",
            dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushSend", "PushGateway", "PushDevice", "PushMetrics", "PushRelay", "PushRedis", "PushStore", "OfflineLab",
                           "PushConsole"]
        ),
        .target(name: "TestSupport", dependencies: ["PushHTTP", "PushCore"], path: "Tests/TestSupport"),
        .testTarget(name: "PushCoreTests", dependencies: ["PushCore", "TestSupport"]),
        .testTarget(name: "PushAuthTests", dependencies: ["PushAuth", "PushCore", "PushHTTP", "TestSupport"]),
        .testTarget(name: "PushHTTPTests", dependencies: ["PushHTTP", "PushCore", "TestSupport"]),
        .testTarget(name: "PushStoreTests", dependencies: ["PushStore", "TestSupport"]),
        .testTarget(name: "PushRedisTests", dependencies: ["PushRedis", "PushAuth", "PushCore", "PushGateway", "PushHTTP", "TestSupport"]),
        .testTarget(name: "PushSendTests", dependencies: ["PushSend", "PushAuth", "PushCore", "PushHTTP", "PushGateway", "TestSupport"]),
        .testTarget(name: "PushDeviceTests", dependencies: ["PushDevice", "PushCore", "PushHTTP", "TestSupport"]),
        .testTarget(name: "PushMetricsTests", dependencies: ["PushMetrics", "PushDevice", "PushCore", "PushHTTP", "PushStore", "TestSupport"]),
        .testTarget(name: "PushGatewayTests", dependencies: ["PushGateway", "PushSend", "PushAuth", "PushCore", "PushHTTP", "TestSupport"],
                    exclude: ["Peers"]),
        .testTarget(name: "PushRelayTests", dependencies: ["PushRelay", "PushRedis", "PushCore", "PushAuth", "PushHTTP", "PushStore", "PushGateway", "TestSupport"]),
        .testTarget(name: "PushConsoleTests", dependencies: ["PushConsole", "PushGateway", "PushSend", "PushDevice", "PushMetrics", "PushHTTP",
                                                            "PushCore", "PushAuth", "OfflineLab", "PushRelay", "TestSupport"]),
        .testTarget(name: "OfflineLabTests", dependencies: ["OfflineLab", "PushDevice", "PushGateway", "PushSend", "PushAuth", "PushCore", "PushHTTP", "PushRelay", "TestSupport"]),
        // The CLI tests run the built binary; OptionDeclarationTests also reads the commands' declarations.
        .testTarget(name: "pushlabTests", dependencies: ["pushlab", "TestSupport"]),
        // Issue 11: the bad-input corpus (Tests/Corpus) run through the real binary and servers,
        // and the secrets checks over every command's output.
        .testTarget(name: "HardeningTests", dependencies: ["PushGateway", "PushHTTP", "TestSupport"]),
        // Issue 17: every shell example of README.md and docs/ run in a lab and compared
        // (the convention: docs/README.md); balanced fences and relative links.
        .testTarget(name: "ExamplesTests", dependencies: ["TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (Fuzz/README.md): libFuzzer executables with no `main` of their own, so they
// exist only when scripts/fuzz builds with PUSHLAB_FUZZ=1 and `--sanitize=fuzzer` in its own
// scratch path; the normal build never sees them.
if Context.environment["PUSHLAB_FUZZ"] != nil {
    package.targets += [
        // Runs Swift concurrency's global jobs inline on the fuzzing thread (Fuzz/README.md).
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        // The gateway and collector answered in memory, shared by the two gateway targets.
        .target(name: "FuzzGatewaySupport", dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushGateway", "PushMetrics"],
                path: "Fuzz/FuzzGatewaySupport"),
        .executableTarget(name: "FuzzJSON", dependencies: ["PushCore"], path: "Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzJWT", dependencies: ["PushAuth"], path: "Fuzz/FuzzJWT"),
        .executableTarget(name: "FuzzServerRequests", dependencies: ["PushCore", "PushHTTP", "FuzzSupport", "FuzzGatewaySupport"],
                          path: "Fuzz/FuzzServerRequests"),
        .executableTarget(name: "FuzzHTTP1", dependencies: ["TestSupport", "FuzzSupport", "PushHTTP"], path: "Fuzz/FuzzHTTP1"),
        .executableTarget(name: "FuzzAppGroupFile", dependencies: ["PushDevice"], path: "Fuzz/FuzzAppGroupFile"),
        .executableTarget(name: "FuzzFCMOAuth", dependencies: ["PushCore", "PushAuth", "PushHTTP", "PushGateway", "FuzzSupport", "FuzzGatewaySupport"],
                          path: "Fuzz/FuzzFCMOAuth"),
        .executableTarget(name: "FuzzRelayRequests", dependencies: ["PushCore", "PushRelay"], path: "Fuzz/FuzzRelayRequests"),
    ]
    package.products += ["FuzzJSON", "FuzzJWT", "FuzzServerRequests", "FuzzHTTP1", "FuzzAppGroupFile", "FuzzFCMOAuth", "FuzzRelayRequests"]
        .map { .executable(name: $0, targets: [$0]) }
}

// Benchmark drivers (benchmarks/*.sh, `make bench`): not part of the CLI, so they exist only when
// PUSHLAB_BENCH=1 (the benchmark scripts set it); `make test` and `make install` never build them.
if Context.environment["PUSHLAB_BENCH"] != nil {
    package.targets += [
        // Measures JWT sign/verify for benchmarks/auth.sh; not part of the CLI.
        .executableTarget(name: "pushlab-bench-auth", dependencies: ["PushAuth"]),
        // Drives HTTPClient for benchmarks/transport-client.sh; not part of the CLI.
        .executableTarget(name: "pushlab-bench-client", dependencies: ["PushHTTP"]),
        // Benchmarks only: the APNs/FCM-shaped server every sender benchmark peer talks to.
        .executableTarget(name: "pushlab-bench-push-server", dependencies: ["PushHTTP"]),
        // Measures the NSE emulator for benchmarks/nse.sh; not part of the CLI.
        .executableTarget(name: "pushlab-bench-nse", dependencies: ["PushCore", "PushDevice", "PushHTTP"]),
        // One broadcast to many subscribed activities for benchmarks/live-activities.sh; not part of the CLI.
        .executableTarget(name: "pushlab-bench-live", dependencies: ["OfflineLab", "PushGateway", "PushSend", "PushAuth", "PushCore", "PushHTTP"]),
    ]
    package.products += ["pushlab-bench-auth", "pushlab-bench-client", "pushlab-bench-push-server", "pushlab-bench-nse",
                         "pushlab-bench-live"].map { .executable(name: $0, targets: [$0]) }
}
