import Foundation

/// One step on a Retainza phone, for `pushlab retainza`, the console and tests.
public struct RetainzaTimelineEntry: Sendable, Equatable, Codable {
    public var at: Date
    /// `launch`, `sdk`, `token`, `push`, `tap`, `call`, `queue`, `warning`, `finding`.
    public var kind: String
    public var text: String

    public init(at: Date, kind: String, text: String) {
        self.at = at
        self.kind = kind
        self.text = text
    }
}

/// Where the app is when a push arrives or is tapped.
public enum RetainzaAppState: String, Sendable, CaseIterable, Codable {
    case foreground, background, killed
}

/// What a push did on arrival.
public struct RetainzaArrival: Sendable, Equatable {
    /// The push carried `rz_message_id`.
    public var isRetainza: Bool
    /// The handler that ran (`handleForeground`, `handleBackground`), or nil.
    public var handler: String?
    public var ack: RetainzaSendOutcome?
}

/// What a tap did: whether the SDK saw it and what became of the `opened` ack.
public struct RetainzaOpen: Sendable, Equatable {
    public enum LostCause: String, Sendable, Codable {
        /// Cold start and the app does not call `handleLaunchOptions`.
        case missingHandleLaunchOptions = "missing-handleLaunchOptions"
        /// Warm tap and the app does not call `handleOpen`.
        case missingHandleOpen = "missing-handleOpen"
        /// The ack could not leave (offline, 5xx): acks are never queued.
        case offline
        case consent
        case optedOut = "opted-out"
        case rejected
        case notRetainza = "not-retainza"
        case sdkNotStarted = "sdk-not-started"
    }
    /// `handleOpen`, `handleLaunchOptions`, or nil when no handler saw the tap.
    public var handler: String?
    public var ack: RetainzaSendOutcome?
    public var lost: LostCause?
    public var counted: Bool { lost == nil }
}
