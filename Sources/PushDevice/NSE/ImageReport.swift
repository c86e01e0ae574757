import Foundation
import PushCore

/// What happened to `CIO.push.image`.
public struct ImageReport: Sendable, Codable, Equatable {
    public enum Verdict: String, Sendable, Codable {
        case attached, dropped
        /// The push names no image.
        case none
    }
    public var url: String?
    public var verdict: Verdict
    public var code: String?
    public var reason: String?
    public var fix: String?
    public var warnings: [String]
    public var redirectChain: [String]
    public var status: Int?
    public var bytes: Int?

    public static let noImage = ImageReport(url: nil, verdict: .none, warnings: [], redirectChain: [])

    static func dropped(_ url: String?, _ reason: ImageDropReason, chain: [String] = [], status: Int? = nil) -> ImageReport {
        ImageReport(url: url, verdict: .dropped, code: reason.code, reason: reason.reason, fix: reason.fix,
                    warnings: [], redirectChain: chain, status: status)
    }
}
