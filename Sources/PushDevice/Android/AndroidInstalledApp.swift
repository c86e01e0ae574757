import Foundation
import PushCore

/// Another app on the phone that may open a link.
public struct AndroidInstalledApp: Codable, Sendable, Equatable {
    public var package: String
    /// A browser: opens any http/https link.
    public var browser: Bool
    public var intentFilters: [AndroidIntentFilter]
    public init(package: String, browser: Bool = false, intentFilters: [AndroidIntentFilter] = []) {
        self.package = package
        self.browser = browser
        self.intentFilters = intentFilters
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case package, browser, intentFilters }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        package = try c.decode(String.self, forKey: .package)
        browser = try c.decodeIfPresent(Bool.self, forKey: .browser) ?? false
        intentFilters = try c.decodeIfPresent([AndroidIntentFilter].self, forKey: .intentFilters) ?? []
    }

    public func opens(_ url: URL) -> Bool {
        if browser, let s = url.scheme, s == "http" || s == "https" { return true }
        return intentFilters.contains { $0.matches(url) }
    }
}
