import PushCore

/// What the gateway needs to know of an APNs body: is it a JSON object, and which
/// Customer.io delivery does it carry (to join the gateway's records with the collector's).
enum PayloadInspector {
    enum Verdict: Equatable {
        case notAnObject
        case object(deliveryID: String?)
    }

    static func inspect(_ body: [UInt8]) -> Verdict {
        guard let document = try? JSONDocument.parse(body), case .object = document.root else { return .notAnObject }
        return .object(deliveryID: document.root[CIOPush.deliveryIDKey]?.stringValue)
    }
}
