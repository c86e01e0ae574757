import Foundation
import PushHTTP

/// Image downloads on the virtual phone (docs/specs/android-side.md §1, §3), built on the
/// device's `ImageFetcher`. The Customer.io SDK fetches synchronously inside the handler with
/// no timeout, size cap, status or type check and swallows every failure; the only limit is
/// the platform's window for `onMessageReceived`. The FCM SDK's tray path caps the image at
/// 1 MiB and waits 5 s, then shows the notification without it.
struct AndroidImageDownload: Sendable {
    var transport: any HTTPTransport
    var profile: AndroidAppProfile

    /// FCM's tray image limits (`ImageDownload.java`).
    static let fcmMaxBytes = 1024 * 1024
    static let fcmWaitMs: Int64 = 5_000
    /// No cap in the SDK; pushlab stops at this many bytes so a runaway server cannot eat memory.
    static let sdkSafetyCapBytes = 64 * 1024 * 1024

    /// Downloads `url` for `drawer` within `windowMs` of real time.
    func fetch(_ url: String, drawer: AndroidDrawer, windowMs: Int64) async -> AndroidImageResult {
        let start = ContinuousClock.now
        let limitMs = drawer == .fcmSDK ? min(windowMs, Self.fcmWaitMs) : windowMs
        let deadline = start + .milliseconds(limitMs)
        let fetcher = ImageFetcher(transport: transport, allowArbitraryLoads: profile.cleartextTrafficPermitted,
                                   maxBytes: drawer == .fcmSDK ? Self.fcmMaxBytes : Self.sdkSafetyCapBytes)
        let result = await fetcher.fetch(url, remaining: { deadline - ContinuousClock.now })
        let elapsed = (ContinuousClock.now - start).milliseconds
        func fail(_ code: String, _ reason: String, _ fix: String, bytes: Int? = nil) -> AndroidImageResult {
            AndroidImageResult(url: url, shown: false, code: code, reason: reason, fix: fix, bytes: bytes, format: nil, elapsedMs: elapsed)
        }
        let swallowed = drawer == .customerIOSDK ? " (the SDK swallows it and shows the notification without a picture)" : ""
        switch result {
        case .failure(let why):
            switch why {
            case .invalidURL:
                return fail("malformed-url", "'\(url)' is not a URL: MalformedURLException\(swallowed)",
                            "send a full https URL in data.image, or leave the key out (an empty image is customerio-android #333)")
            case .insecureURL, .insecureRedirect:
                return fail("cleartext-blocked", "plain-http image: 'Cleartext HTTP traffic not permitted' (network security config, targetSdk 28+)\(swallowed)",
                            "serve the image over https, or allow cleartext for its domain in network_security_config.xml")
            case .timedOut:
                if drawer == .fcmSDK {
                    return fail("fcm-wait-expired", "the FCM SDK waited \(limitMs) ms for the image, then showed the notification without it",
                                "serve the image faster or smaller (FCM waits 5 s)")
                }
                return fail("outlived-window", "the synchronous download was still running when the handler's window (\(limitMs) ms) ended: Android may stop the service before notify(), so pushlab shows nothing",
                            "serve images small and fast (well under a second); the SDK sets no timeout of its own")
            case .tooLarge:
                if drawer == .fcmSDK {
                    return fail("too-large", "over FCM's 1 MiB image limit: shown without the picture",
                                "keep notification images under 1 MB (docs: send-image)")
                }
                return fail("too-large", "over pushlab's \(Self.sdkSafetyCapBytes / 1024 / 1024) MiB safety cap (the SDK has none: a bitmap this big risks an OutOfMemoryError)",
                            "resize the image; big-picture notifications show at most ~450 dp tall")
            default:
                return fail(why.code, "\(why.reason)\(swallowed)", why.fix)
            }
        case .success(let download):
            if download.status >= 400 {
                return fail("http-\(download.status)", "HTTP \(download.status): URL.openStream() throws (FileNotFoundException for 4xx)\(swallowed)",
                            "check the image URL; the server answered \(download.status)", bytes: download.body.count)
            }
            guard let format = ImageFormat.sniff(download.body), Self.decodable(format, apiLevel: profile.deviceApiLevel) else {
                return fail("not-decodable", "BitmapFactory cannot decode these \(download.body.count) bytes (content-type \(download.headers["content-type"] ?? "none"))\(swallowed)",
                            "serve a JPEG, PNG, GIF, BMP or WebP image", bytes: download.body.count)
            }
            return AndroidImageResult(url: url, shown: true, code: nil, reason: nil, fix: nil, bytes: download.body.count,
                                      format: format.rawValue, elapsedMs: elapsed)
        }
    }

    /// What `BitmapFactory` decodes: JPEG, PNG, GIF (first frame), BMP, WebP; HEIF from API 28.
    static func decodable(_ format: ImageFormat, apiLevel: Int) -> Bool {
        switch format {
        case .jpeg, .png, .gif, .bmp, .webp: return true
        case .heic: return apiLevel >= 28
        }
    }
}
