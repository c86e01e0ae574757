import Foundation
import PushAuth
import PushCore
import PushHTTP

/// `pushlab channels` and `pushlab send apns --channel`: create, read, list and delete broadcast
/// channels, and send a broadcast, with the same provider token as device pushes.
public struct BroadcastChannelClient: Sendable {
    public let management: ChannelManagementEndpoint
    /// The push host for broadcasts (`/4/broadcasts/apps/<bundle>`).
    public let push: APNsEndpoint
    public let transport: any HTTPTransport
    public let credential: any APNsCredential
    public var requestTimeout: Duration?
    public var log: (@Sendable (String) -> Void)?

    public init(management: ChannelManagementEndpoint, push: APNsEndpoint, transport: any HTTPTransport,
                credential: any APNsCredential, requestTimeout: Duration? = nil, log: (@Sendable (String) -> Void)? = nil) {
        self.management = management
        self.push = push
        self.transport = transport
        self.credential = credential
        self.requestTimeout = requestTimeout
        self.log = log
    }

    /// `POST /1/apps/<bundle>/channels` → 201 and the new channel's id.
    public func create(bundleID: String, policy: ChannelStoragePolicy) async -> ChannelAnswer<String> {
        let body = BroadcastChannelSettings(storagePolicy: policy).body
        return await exchange("POST", management.baseURL + BroadcastChannelAPI.channelsPath(bundleID: bundleID), body: body) { r in
            guard r.status == 201, let id = r.headers[BroadcastChannelAPI.channelIDHeader] else { return nil }
            return id
        }
    }

    /// `GET /1/apps/<bundle>/channels` with `apns-channel-id` → the channel's settings.
    public func read(bundleID: String, channelID: String) async -> ChannelAnswer<BroadcastChannelSettings> {
        await exchange("GET", management.baseURL + BroadcastChannelAPI.channelsPath(bundleID: bundleID), channelID: channelID) { r in
            r.status == 200 ? BroadcastChannelSettings(answer: r.body) : nil
        }
    }

    /// `GET /1/apps/<bundle>/all-channels` → every channel id of the app in this environment.
    public func list(bundleID: String) async -> ChannelAnswer<[String]> {
        await exchange("GET", management.baseURL + BroadcastChannelAPI.allChannelsPath(bundleID: bundleID)) { r in
            guard r.status == 200, let doc = try? JSONDocument.parse(r.body), let ids = doc.root["channels"]?.arrayValue else { return nil }
            return ids.compactMap(\.stringValue)
        }
    }

    /// `DELETE /1/apps/<bundle>/channels` with `apns-channel-id` → 204.
    public func delete(bundleID: String, channelID: String) async -> ChannelAnswer<Void> {
        await exchange("DELETE", management.baseURL + BroadcastChannelAPI.channelsPath(bundleID: bundleID), channelID: channelID) { r in
            r.status == 204 ? () : nil
        }
    }

    /// `POST /4/broadcasts/apps/<bundle>` on the push host: one Live Activity update or end for
    /// every subscriber of the channel. No `apns-topic` (the bundle id is in the path);
    /// `expiration` must be 0 on a No-Storage channel.
    public func broadcast(bundleID: String, channelID: String, payload: [UInt8], priority: Int = 10,
                          expiration: Int? = nil) async -> ChannelAnswer<Void> {
        var extra: [(String, String)] = [(APNsHeader.pushType, APNsPushType.liveactivity.rawValue), (APNsHeader.priority, String(priority))]
        if let expiration { extra.append((APNsHeader.expiration, String(expiration))) }
        return await exchange("POST", push.baseURL + BroadcastChannelAPI.broadcastPath(bundleID: bundleID), channelID: channelID,
                              headers: extra, body: payload) { r in r.status == 200 ? () : nil }
    }

    private func exchange<Value: Sendable>(_ method: String, _ url: String, channelID: String? = nil, headers extra: [(String, String)] = [],
                                           body: [UInt8] = [], success: (HTTPResponse) -> Value?) async -> ChannelAnswer<Value> {
        var renewed = false
        while true {
            let authorization: String
            do { authorization = try await credential.authorization() } catch {
                return .rejected(status: 0, reason: .apns(.other("ProviderTokenError: \(error)")), requestID: nil)
            }
            var headers = HTTPHeaders()
            headers.add(APNsHeader.authorization, authorization)
            if let channelID { headers.add(BroadcastChannelAPI.channelIDHeader, channelID) }
            for (name, value) in extra { headers.add(name, value) }
            if !body.isEmpty { headers.add("content-type", "application/json") }
            let request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: requestTimeout,
                                      maxResponseBodyBytes: 1 << 20)
            log?(RequestDescription.render(request))
            let response: HTTPResponse
            do { response = try await transport.send(request) } catch let error as HTTPClientError {
                return .failed(error)
            } catch {
                return .failed(.protocolError("\(error)"))
            }
            log?(RequestDescription.render(response))
            let requestID = response.headers[BroadcastChannelAPI.requestIDHeader]
            if let value = success(response) { return .success(value, requestID: requestID) }
            let reason = (try? JSONDocument.parse(response.body))?.root["reason"]?.stringValue.map(ChannelReason.init(rawValue:))
            if reason == .apns(.expiredProviderToken), !renewed, await credential.renew(afterRejecting: authorization) {
                renewed = true
                continue
            }
            return .rejected(status: response.status, reason: reason, requestID: requestID)
        }
    }
}
