import Foundation

/// A JOSE header. Only the fields pushlab's protocols use.
public struct JWTHeader: Sendable, Hashable {
    public var alg: String
    public var kid: String?
    public var typ: String?

    public init(alg: JWTAlgorithm, kid: String? = nil, typ: String? = nil) {
        self.init(alg: alg.rawValue, kid: kid, typ: typ)
    }

    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }

    public var algorithm: JWTAlgorithm? { JWTAlgorithm(rawValue: alg) }
}
