import Foundation
import PushCore

/// An activity of the emulated app: launch mode, parent (for RESET_TASK_STACK) and the links
/// its intent filters accept.
public struct AndroidActivity: Codable, Sendable, Equatable {
    public enum LaunchMode: String, Codable, Sendable, CaseIterable {
        case standard, singleTop, singleTask, singleInstance
    }
    public var name: String
    public var launchMode: LaunchMode
    public var parent: String?
    public var intentFilters: [AndroidIntentFilter]

    public init(name: String, launchMode: LaunchMode = .standard, parent: String? = nil, intentFilters: [AndroidIntentFilter] = []) {
        self.name = name
        self.launchMode = launchMode
        self.parent = parent
        self.intentFilters = intentFilters
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, launchMode, parent, intentFilters }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        launchMode = try c.decodeIfPresent(LaunchMode.self, forKey: .launchMode) ?? .standard
        parent = try c.decodeIfPresent(String.self, forKey: .parent)
        intentFilters = try c.decodeIfPresent([AndroidIntentFilter].self, forKey: .intentFilters) ?? []
    }
}

/// A VIEW intent filter: schemes, hosts (`*` for any) and optional path prefixes.
/// `autoVerify` marks an App Link filter; whether the domain is verified is the profile's
/// `verifiedDomains`.
public struct AndroidIntentFilter: Codable, Sendable, Equatable {
    public var schemes: [String]
    public var hosts: [String]
    public var pathPrefixes: [String]
    public var autoVerify: Bool

    public init(schemes: [String], hosts: [String] = ["*"], pathPrefixes: [String] = [], autoVerify: Bool = false) {
        self.schemes = schemes
        self.hosts = hosts
        self.pathPrefixes = pathPrefixes
        self.autoVerify = autoVerify
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case schemes, hosts, pathPrefixes, autoVerify }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemes = try c.decode([String].self, forKey: .schemes)
        hosts = try c.decodeIfPresent([String].self, forKey: .hosts) ?? ["*"]
        pathPrefixes = try c.decodeIfPresent([String].self, forKey: .pathPrefixes) ?? []
        autoVerify = try c.decodeIfPresent(Bool.self, forKey: .autoVerify) ?? false
    }

    /// Android matches scheme case-sensitively (lower case by convention), host without case.
    public func matches(_ url: URL) -> Bool {
        guard let scheme = url.scheme, schemes.contains(scheme) else { return false }
        let host = (url.host ?? "").lowercased()
        guard hosts.contains("*") || hosts.contains(where: { $0.lowercased() == host }) else { return false }
        guard !pathPrefixes.isEmpty else { return true }
        let path = url.path.isEmpty ? "/" : url.path
        return pathPrefixes.contains { path.hasPrefix($0) }
    }
}
