import Foundation

/// Why a payload could not be built: which input (named as its CLI flag) and how to fix it.
public struct PayloadBuildError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The flag (`--image`) the problem comes from; nil when it is about the combination.
    public var flag: String?
    public var message: String
    public var fix: String
    public var ruleID: String?

    public init(flag: String?, message: String, fix: String, ruleID: String? = nil) {
        self.flag = flag
        self.message = message
        self.fix = fix
        self.ruleID = ruleID
    }

    public var description: String { (flag.map { "\($0): " } ?? "") + message }
}
