import Foundation
import PushCore

/// An emulated device the gateway knows: which tokens reach it, for which app, and whether
/// it has been unregistered (APNs 410 / FCM UNREGISTERED).
public struct EmulatedDevice: Codable, Sendable, Hashable {
    public enum Platform: String, Codable, Sendable { case ios, android }

    public var name: String
    public var platform: Platform
    /// Hex APNs device token (iOS).
    public var apnsToken: String?
    /// FCM registration token.
    public var fcmToken: String?
    /// Firebase Installation ID: the app instance's `fid` target (docs/specs/fcm.md); FCM
    /// reaches the same device through it or through the registration token.
    public var fid: String?
    /// The app's bundle id: the APNs topic (without push-type suffix).
    public var bundleID: String
    /// The Firebase project the FCM token belongs to.
    public var firebaseProject: String?
    public var environment: APNsEnvironment
    /// Path of the app profile the device emulator runs pushes through (nil: record only).
    public var appProfile: String?
    /// When set, the token stopped being valid at this moment: APNs answers 410 Unregistered
    /// with this timestamp, FCM answers UNREGISTERED.
    public var unregisteredSince: Date?

    public init(name: String, platform: Platform = .ios, apnsToken: String? = nil, fcmToken: String? = nil,
                bundleID: String, firebaseProject: String? = nil, environment: APNsEnvironment = .sandbox,
                appProfile: String? = nil, unregisteredSince: Date? = nil) {
        self.name = name
        self.platform = platform
        self.apnsToken = apnsToken?.lowercased()
        self.fcmToken = fcmToken
        self.bundleID = bundleID
        self.firebaseProject = firebaseProject
        self.environment = environment
        self.appProfile = appProfile
        self.unregisteredSince = unregisteredSince
    }

    enum CodingKeys: String, CodingKey {
        case name, platform, apnsToken, fcmToken, fid, bundleID, firebaseProject, environment, appProfile, unregisteredSince
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let apns = try c.decodeIfPresent(String.self, forKey: .apnsToken)
        let fcm = try c.decodeIfPresent(String.self, forKey: .fcmToken)
        let fid = try c.decodeIfPresent(String.self, forKey: .fid)
        guard apns != nil || fcm != nil || fid != nil else {
            throw DecodingError.dataCorruptedError(forKey: .apnsToken, in: c,
                debugDescription: "a device needs an apnsToken, an fcmToken or a fid (Firebase Installation ID)")
        }
        self.init(name: try c.decodeIfPresent(String.self, forKey: .name) ?? "device",
                  platform: try c.decodeIfPresent(Platform.self, forKey: .platform) ?? .ios,
                  apnsToken: apns, fcmToken: fcm,
                  bundleID: try c.decode(String.self, forKey: .bundleID),
                  firebaseProject: try c.decodeIfPresent(String.self, forKey: .firebaseProject),
                  environment: try c.decodeIfPresent(APNsEnvironment.self, forKey: .environment) ?? .sandbox,
                  appProfile: try c.decodeIfPresent(String.self, forKey: .appProfile),
                  unregisteredSince: try c.decodeIfPresent(Date.self, forKey: .unregisteredSince))
        self.fid = fid
    }
}
