import Foundation
import PushHTTP

/// `/admin` on the gateway's Google host: register devices at runtime and read the records.
/// Only served on the gateway's own (loopback by default) listeners.
struct AdminRoutes: Sendable {
    let devices: DeviceRegistry
    let records: PushRecordStore

    func register(on router: inout Router) {
        let devices = devices, records = records
        router.add("GET", "/admin/devices") { _ in
            .now(.json(200, encode(["devices": devices.devices])))
        }
        router.add("POST", "/admin/devices") { request in
            do {
                let added = try DeviceRegistry.decodeDevices(Data(request.body), source: "request body")
                for d in added { devices.register(d) }
                return .now(.json(201, encode(["devices": added])))
            } catch {
                return .now(.json(400, #"{"error":"\#(jsonEscaped("\(error)"))"}"#))
            }
        }
        router.add("GET", "/admin/pushes") { request in
            let limit = request.query.flatMap { q in
                q.split(separator: "&").first { $0.hasPrefix("limit=") }.flatMap { Int($0.dropFirst(6)) }
            } ?? 100
            return .later {
                // Reading waits for the record writer: keep it off the event loop.
                do { return .json(200, encode(["pushes": try records.recent(limit: limit)])) } catch {
                    return .json(500, #"{"error":"\#(jsonEscaped("\(error)"))"}"#)
                }
            }
        }
    }
}

private func encode<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
}
