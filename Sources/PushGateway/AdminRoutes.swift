import Foundation
import PushHTTP

/// `/admin` on the gateway's Google host: register devices at runtime and read the records.
/// Only served on the gateway's own (loopback by default) listeners.
struct AdminRoutes: Sendable {
    let devices: DeviceRegistry
    let records: PushRecordStore

    /// What `GET /admin/pushes?limit=N` takes: up to what the in-memory store keeps.
    static let pushesLimits = 1...PushRecordStore.memoryCapacity

    func register(on router: inout Router) {
        let devices = devices, records = records
        router.add("GET", "/admin/devices") { request in
            if let refusal = AdminAccess.refusal(for: request) { return .now(refusal) }
            return .now(.json(200, encode(["devices": devices.devices])))
        }
        router.add("POST", "/admin/devices") { request in
            if let refusal = AdminAccess.refusal(for: request) { return .now(refusal) }
            do {
                let added = try DeviceRegistry.decodeDevices(Data(request.body), source: "request body")
                for d in added { devices.register(d) }
                return .now(.json(201, encode(["devices": added])))
            } catch {
                return .now(.json(400, #"{"error":"\#(jsonEscaped("\(error)"))"}"#))
            }
        }
        router.add("GET", "/admin/pushes") { request in
            if let refusal = AdminAccess.refusal(for: request) { return .now(refusal) }
            let limit: Int
            do throws(QueryParameterError) {
                limit = try QueryParameters(request.query).int("limit", range: Self.pushesLimits) ?? 100
            } catch {
                return .now(.json(400, encode(error)))
            }
            return .later {
                // Reading waits for the record writer: keep it off the event loop.
                do { return .json(200, encode(["pushes": try records.recent(limit: limit)])) } catch {
                    return .json(500, #"{"error":"\#(jsonEscaped("\(error)"))"}"#)
                }
            }
        }
    }
}

/// `/admin` answers loopback peers only, even when the gateway listens on every interface
/// (`serve --host 0.0.0.0`): registering devices and reading the push records is for the
/// machine's own tools, not the network (issue 11, secrets).
public enum AdminAccess {
    /// True for `127.x.x.x:port`, `[::1]:port` and IPv4-mapped `[::ffff:127.x.x.x]:port`
    /// (the form `ConnectionContext.remoteAddress` takes).
    public static func isLoopback(_ remoteAddress: String) -> Bool {
        var host = remoteAddress
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<close]).lowercased()
            if host == "::1" { return true }
            guard host.hasPrefix("::ffff:") else { return false }
            host = String(host.dropFirst(7))
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// A 403 naming the rule, or nil when the peer may use `/admin`.
    public static func refusal(for request: ServerRequest) -> ServerResponse? {
        if isLoopback(request.connection.remoteAddress) { return nil }
        return .json(403, #"{"error":"/admin answers loopback clients only (request from \#(jsonEscaped(request.connection.remoteAddress)))","fix":"call /admin from the machine running pushlab serve (127.0.0.1 or ::1)"}"#)
    }
}

private func encode<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
}
