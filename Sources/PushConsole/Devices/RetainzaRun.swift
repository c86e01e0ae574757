import Foundation
import PushCore
import PushDevice

/// What a virtual iPhone with the Retainza SDK did with one push (docs/retainza.md), for the
/// console's device view: the alert, the handler that ran and its ack, and the phone's timeline.
public struct RetainzaRun: Sendable, Codable {
    public var title: String?
    public var body: String?
    /// `rz_message_id`; nil when the push is not Retainza's.
    public var messageID: String?
    /// `handleForeground`, `handleBackground`, or nil (shown by iOS, no handler ran).
    public var handler: String?
    public var ack: String?
    public var timeline: [RetainzaTimelineEntry]

    public init(userInfo: JSONValue, handler: String?, ack: String?, timeline: [RetainzaTimelineEntry]) {
        let alert = userInfo.objectValue?["aps"]?.objectValue?["alert"]?.objectValue
        title = alert?["title"]?.stringValue
        body = alert?["body"]?.stringValue
        messageID = RetainzaSDK.messageID(in: userInfo)
        self.handler = handler
        self.ack = ack
        self.timeline = timeline
    }
}
