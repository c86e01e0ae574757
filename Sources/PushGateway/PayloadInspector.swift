import PushCore

/// What the gateway needs to know of an APNs body: is it a JSON object, and which
/// Customer.io delivery does it carry (to join the gateway's records with the collector's).
enum PayloadInspector {
    enum Verdict: Equatable {
        case notAnObject
        case object(deliveryID: String?)
    }

    private static let deliveryIDKey = Array(CIOPush.deliveryIDKey.utf8)

    static func inspect(_ body: [UInt8]) -> Verdict {
        switch JSONObjectSkimmer.skim(body, capturingUTF8: deliveryIDKey) {
        case .notAnObject: return .notAnObject
        case .object(let captured): return .object(deliveryID: captured)
        }
    }
}
