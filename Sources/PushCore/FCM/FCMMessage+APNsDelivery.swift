import Foundation

/// What an iOS device receives for an FCM message (docs/specs/fcm.md: FCM forwards `apns.payload`).
extension FCMMessage {
    /// The APNs payload FCM hands to an iOS device for this message: `apns.payload`, with the
    /// notification as `aps.alert` when the payload has none, the image through FCM's extension
    /// helper, `data` at the top level and `gcm.message_id`.
    public func apnsDeliveryPayload(messageID: String) -> [UInt8] {
        let message = self
        var payload = message.apnsPayload?.objectValue ?? JSONObject()
        var aps = payload["aps"]?.objectValue ?? JSONObject()
        if aps["alert"] == nil, let n = message.notification, n.title != nil || n.body != nil {
            var alert = JSONObject()
            if let t = n.title { alert["title"] = .string(t) }
            if let b = n.body { alert["body"] = .string(b) }
            aps["alert"] = .object(alert)
        }
        if let image = message.apnsImage ?? message.notification?.image {
            // FCM attaches the image through its own extension helper: it sets mutable-content
            // and passes the URL under fcm_options.image.
            aps["mutable-content"] = 1
            payload["fcm_options"] = .object(JSONObject(["image": .string(image)]))
        }
        payload["aps"] = .object(aps)
        for (key, value) in message.data where payload[key] == nil { payload[key] = .string(value) }
        payload["gcm.message_id"] = .string(messageID)
        return JSONValue.object(payload).minifiedBytes()
    }
}
