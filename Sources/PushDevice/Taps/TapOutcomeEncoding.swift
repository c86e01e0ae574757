import Foundation
import PushCore

// `--json` shapes of tap outcomes. Keys are stable; docs/deep-links.md lists them.

extension TapDestination: Encodable {
    enum CodingKeys: String, CodingKey { case kind, handler, url, app }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        switch self {
        case .appRoute(let handler, let url):
            try c.encode(handler, forKey: .handler)
            try c.encode(url, forKey: .url)
        case .otherApp(let name, let url):
            try c.encode(name, forKey: .app)
            try c.encode(url, forKey: .url)
        case .browser(let url):
            try c.encode(url, forKey: .url)
        case .appHome, .nothing:
            break
        }
    }
}

extension DeepLinkResolution: Encodable {
    enum CodingKeys: String, CodingKey { case tier, destination, atSeconds, steps }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tier?.rawValue, forKey: .tier)
        try c.encode(destination, forKey: .destination)
        try c.encode(atSeconds, forKey: .atSeconds)
        try c.encode(steps.map(\.summary), forKey: .steps)
    }
}

extension TapOutcome: Encodable {
    enum CodingKeys: String, CodingKey {
        case action, state, customerIOPush, presented, delivery, link, tier, destination, atSeconds, resolutionSteps
        case metric, openedEvent, deletedImageFiles, completionHandlerCalls, steps, diagnostics
    }

    struct EncodedEvent: Encodable {
        var messageId: String
        var event: String
        var properties: [String: String]
        var anonymousId: String
        var userId: String?
        var timestamp: String
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tap.action, forKey: .action)
        try c.encode(tap.state, forKey: .state)
        try c.encode(isCustomerIOPush, forKey: .customerIOPush)
        try c.encode(presented, forKey: .presented)
        try c.encode(delivery, forKey: .delivery)
        try c.encode(link, forKey: .link)
        try c.encode(tier?.rawValue, forKey: .tier)
        try c.encode(destination, forKey: .destination)
        try c.encode(resolution?.atSeconds ?? 0, forKey: .atSeconds)
        try c.encode(resolution?.steps.map(\.summary) ?? [], forKey: .resolutionSteps)
        try c.encode(metric, forKey: .metric)
        try c.encode(openedEvent.map {
            EncodedEvent(messageId: $0.messageId, event: $0.event, properties: $0.properties, anonymousId: $0.anonymousId,
                         userId: $0.userId, timestamp: ISO8601Timestamp.format($0.timestamp))
        }, forKey: .openedEvent)
        try c.encode(deletedImageFiles, forKey: .deletedImageFiles)
        try c.encode(completionHandlerCalls, forKey: .completionHandlerCalls)
        try c.encode(steps, forKey: .steps)
        try c.encode(diagnostics, forKey: .diagnostics)
    }
}

extension UploadOutcome {
    /// `accepted`, `rejected` or `kept`, for tables and JSON.
    public var kind: String {
        switch self {
        case .accepted: return "accepted"
        case .rejected: return "rejected"
        case .kept: return "kept"
        }
    }
}
