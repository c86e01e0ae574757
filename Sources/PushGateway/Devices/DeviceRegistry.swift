import Foundation
import PushCore
import Synchronization

/// Who a token belongs to, as the gateway sees it.
public enum DeviceLookup: Sendable, Equatable {
    case known(EmulatedDevice)
    /// Quick-start mode: no devices declared, any well-formed token is accepted for the dev
    /// bundle id and dev Firebase project.
    case quickStart
    case unknown
}

/// The devices the gateway delivers to. Declared in a file (`--devices`) or at runtime
/// (`POST /admin/devices`). With none declared the registry is in quick-start mode.
///
/// Thread-safe: handlers on the event loop and admin requests read and write it concurrently.
public final class DeviceRegistry: Sendable {
    private struct Devices {
        var byAPNsToken: [String: EmulatedDevice] = [:]
        var byFCMToken: [String: EmulatedDevice] = [:]
        var byFID: [String: EmulatedDevice] = [:]
        /// Bundle ids of every registered device, plus the quick-start one: the APNs topics the
        /// dev team may push to. Kept up to date on register, read on every push.
        var bundleIDs: Set<String> = []
        var isEmpty: Bool { byAPNsToken.isEmpty && byFCMToken.isEmpty && byFID.isEmpty }
    }
    private let state = Mutex(Devices())
    /// The bundle id and Firebase project quick-start mode accepts.
    public let quickStartBundleID: String
    public let quickStartProject: String

    public init(devices: [EmulatedDevice] = [], quickStartBundleID: String = "io.pushlab.demo",
                quickStartProject: String = "pushlab-dev") {
        self.quickStartBundleID = quickStartBundleID
        self.quickStartProject = quickStartProject
        state.withLock { $0.bundleIDs = [quickStartBundleID] }
        for d in devices { register(d) }
    }

    /// Loads `{"devices": [...]}` (or a bare array) from a JSON file.
    public static func load(path: String, quickStartBundleID: String = "io.pushlab.demo",
                            quickStartProject: String = "pushlab-dev") throws -> DeviceRegistry {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GatewayConfigError.unreadable(path: path)
        }
        return DeviceRegistry(devices: try decodeDevices(data, source: path),
                              quickStartBundleID: quickStartBundleID, quickStartProject: quickStartProject)
    }

    static func decodeDevices(_ data: Data, source: String) throws -> [EmulatedDevice] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        struct File: Decodable { var devices: [EmulatedDevice] }
        // Decode the shape the top level has, so the error is the one about that shape (trying
        // each shape in turn reported the last one's error: "expected an array" for a typo deep
        // inside {"devices": [...]}).
        // pushlab's own strict parser first: a syntax error (a trailing comma, a comment) is named
        // at its line and column, where Foundation's parser accepts some and misreports others.
        do { _ = try JSONDocument.parse(Array(data)) } catch where error.reason != .empty {
            let shape = GatewayConfigError.invalidDevices(path: source, why: "").fix
            throw GatewayConfigError.invalidDevices(path: "\(source):\(error.line):\(error.column)", why: "not valid JSON: \(error.message)",
                                                    fix: "\(error.fix); the file's shape: \(shape)")
        } catch {}
        let top = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        let devices: [EmulatedDevice]
        do {
            if let object = top as? [String: Any] {
                devices = object["devices"] != nil ? try decoder.decode(File.self, from: data).devices
                                                   : [try decoder.decode(EmulatedDevice.self, from: data)]
            } else if top is [Any] {
                devices = try decoder.decode([EmulatedDevice].self, from: data)
            } else {
                let empty = data.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
                throw GatewayConfigError.invalidDevices(path: source, why: empty ? "the file is empty" : "not valid JSON")
            }
        } catch let error as GatewayConfigError {
            throw error
        } catch {
            throw GatewayConfigError.invalidDevices(path: source, why: describe(error))
        }
        // A token the gateway could never match is a typo in the file, not a device.
        for (index, device) in devices.enumerated() {
            let at = top is [String: Any] && (top as? [String: Any])?["devices"] != nil ? "/devices/\(index)" : (top is [Any] ? "/\(index)" : "")
            if let token = device.apnsToken, let problem = DeviceToken.problem(token, for: .apns) {
                throw GatewayConfigError.invalidDevices(path: source, why: "\(at)/apnsToken: \(problem.message)")
            }
            if let token = device.fcmToken, let problem = DeviceToken.problem(token, for: .fcm) {
                throw GatewayConfigError.invalidDevices(path: source, why: "\(at)/fcmToken: \(problem.message)")
            }
            if let fid = device.fid, let problem = FirebaseInstallationID.problem(fid) {
                throw GatewayConfigError.invalidDevices(path: source, why: "\(at)/fid: \(problem.message)")
            }
        }
        return devices
    }

    public func register(_ device: EmulatedDevice) {
        state.withLock { s in
            s.bundleIDs.insert(device.bundleID)
            if let t = device.apnsToken { s.byAPNsToken[t] = device }
            if let t = device.fcmToken { s.byFCMToken[t] = device }
            if let f = device.fid { s.byFID[f] = device }
        }
    }

    public var isQuickStart: Bool { state.withLock { $0.isEmpty } }

    /// Unregisters every device: the registry is then what `init(devices: [])` makes
    /// (`Gateway.resetStores`).
    func removeAll() {
        state.withLock { s in
            s = Devices()
            s.bundleIDs = [quickStartBundleID]
        }
    }

    public var devices: [EmulatedDevice] {
        state.withLock { s in
            var seen = Set<String>()
            return (Array(s.byAPNsToken.values) + Array(s.byFCMToken.values) + Array(s.byFID.values))
                .filter { seen.insert($0.name + ($0.apnsToken ?? "") + ($0.fcmToken ?? "") + ($0.fid ?? "")).inserted }
                .sorted { $0.name < $1.name }
        }
    }

    /// Whether `bundleID` belongs to a registered app (or is the quick-start bundle), and the
    /// device behind an APNs token: one lock for both, as every APNs request asks both.
    func lookup(apnsToken: String, bundleID: String) -> (bundleKnown: Bool, device: DeviceLookup) {
        return state.withLock { s in
            let known = s.bundleIDs.contains(bundleID)
            // Quick start has no tokens: no need to hash a 64-byte one.
            if !s.byAPNsToken.isEmpty, let d = s.byAPNsToken[asciiLowercased(apnsToken)] { return (known, .known(d)) }
            return (known, s.isEmpty ? .quickStart : .unknown)
        }
    }

    public func lookup(fcmToken: String) -> DeviceLookup {
        state.withLock { s in
            // Quick start has no tokens: no need to hash a 150-byte registration token.
            if !s.byFCMToken.isEmpty, let d = s.byFCMToken[fcmToken] { return .known(d) }
            return s.isEmpty ? .quickStart : .unknown
        }
    }

    /// The device behind a Firebase Installation ID (the `fid` target).
    public func lookup(fid: String) -> DeviceLookup {
        state.withLock { s in
            if !s.byFID.isEmpty, let d = s.byFID[fid] { return .known(d) }
            return s.isEmpty ? .quickStart : .unknown
        }
    }

    /// Marks a device's tokens as no longer valid from `date` on.
    public func unregister(name: String, at date: Date) {
        state.withLock { s in
            for (k, var d) in s.byAPNsToken where d.name == name { d.unregisteredSince = date; s.byAPNsToken[k] = d }
            for (k, var d) in s.byFCMToken where d.name == name { d.unregisteredSince = date; s.byFCMToken[k] = d }
            for (k, var d) in s.byFID where d.name == name { d.unregisteredSince = date; s.byFID[k] = d }
        }
    }
}

/// A decoding error in words a user can act on: which key, what was wrong.
func describe(_ error: Error) -> String {
    guard let e = error as? DecodingError else { return "\(error)" }
    func path(_ ctx: DecodingError.Context) -> String {
        "/" + ctx.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
    }
    switch e {
    case .keyNotFound(let key, let ctx): return "missing key '\(key.stringValue)' at \(path(ctx))"
    case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx): return "\(path(ctx)): \(ctx.debugDescription)"
    case .dataCorrupted(let ctx): return ctx.codingPath.isEmpty ? ctx.debugDescription : "\(path(ctx)): \(ctx.debugDescription)"
    @unknown default: return "\(error)"
    }
}
