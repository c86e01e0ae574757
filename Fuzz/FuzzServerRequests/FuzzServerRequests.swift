import Foundation
import FuzzGatewaySupport
import FuzzSupport
import PushCore
import PushHTTP

/// libFuzzer target: the gateway's and the collector's request handling, in memory. The first
/// byte picks the host (APNs, Google with the collector mounted, standalone collector); the rest
/// is one or more requests (`FuzzRequest`) separated by a line `===`, all on one connection so
/// per-connection state (the APNs provider token, the one-stream rule) is exercised.
/// Every request must be answered (no trap, no hang) with a valid status; APNs-host answers
/// with a body must be JSON, as APNs's are. One server per host per process, reset after each
/// input (`InMemoryServer.reset`); `FUZZ_CHECK_FRESH=1` also answers each input on a new one and
/// compares (`checkAgainstFresh`).
let fixture: InMemoryServer.Fixture = {
    InlineGlobalExecutor.install()
    do {
        let fixture = try InMemoryServer.Fixture(certs: ProcessInfo.processInfo.environment["PUSHLAB_CERTS"] ?? "certs")
        try fixture.checkGrant()
        return fixture
    } catch {
        fatalError("cannot load the development keys: \(error); run from the repository root")
    }
}()

/// The servers, one per host, built once (`InMemoryServer.Host.allCases` order).
/// `nonisolated(unsafe)`: libFuzzer runs every input on one thread.
nonisolated(unsafe) let servers: [InMemoryServer] = InMemoryServer.Host.allCases.map { host in
    do { return try InMemoryServer(fixture: fixture, host: host) } catch { fatalError("cannot build the in-memory gateway: \(error)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerRequests(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let server = servers[Int(data[0]) % servers.count]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if InMemoryServer.checksAgainstFresh {
        server.checkAgainstFresh { run(bytes, on: $0) }
    } else {
        run(bytes, on: server)
    }
    server.finish()
    server.reset()
    return 0
}

/// The requests of one input, on one connection of `server`, and the checks of their answers.
func run(_ bytes: [UInt8], on server: InMemoryServer) {
    let host = server.host
    let connection = server.makeConnection()
    for chunk in split(bytes, separator: Array("\n===\n".utf8)).prefix(8) {
        let request = FuzzRequest(decoding: chunk)
        if InMemoryServer.checksAgainstFresh, !request.same(as: FuzzRequest(decodingCharacters: chunk)) {
            fatalError("FuzzRequest(decoding:) differs from the Character decoding: \(request) vs \(FuzzRequest(decodingCharacters: chunk))")
        }
        let response = server.respond(request, connection: connection)
        guard response.status == 0 || (200...599).contains(response.status) else {
            fatalError("status \(response.status) is not an HTTP status")
        }
        if host == .apns, !response.body.isEmpty, (try? JSONDocument.parse(response.body)) == nil {
            fatalError("APNs host answered \(response.status) with a non-JSON body: \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
    }
}

func split(_ bytes: [UInt8], separator: [UInt8]) -> [ArraySlice<UInt8>] {
    var out: [ArraySlice<UInt8>] = []
    var start = 0, i = 0
    let first = separator[0]
    bytes.withUnsafeBufferPointer { b in
        while i + separator.count <= b.count {
            if b[i] == first, (1..<separator.count).allSatisfy({ b[i + $0] == separator[$0] }) {
                out.append(bytes[start..<i])
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
    }
    out.append(bytes[start...])
    return out
}
