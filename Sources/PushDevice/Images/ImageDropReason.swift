import Foundation

/// Why the notification shows no image — each case says what the phone did and how to fix it
/// (docs/device.md lists them all). iOS drops such images silently; pushlab names the cause.
public enum ImageDropReason: Error, Sendable, Equatable {
    case invalidURL(String)
    /// App Transport Security blocks plain http (unless NSAllowsArbitraryLoads).
    case insecureURL(String)
    /// A redirect hop leads to plain http; refused before it is fetched.
    case insecureRedirect(from: String, to: String)
    case tooManyRedirects(limit: Int)
    case redirectWithoutLocation(status: Int)
    case httpStatus(Int)
    case emptyBody
    /// Over the 10 MB attachment limit; the transfer was aborted when it passed the limit.
    case tooLarge(limit: Int)
    /// The bytes are no image iOS knows (e.g. an HTML error page).
    case notAnImage(contentType: String?)
    /// An image, but not JPEG, PNG or GIF.
    case unsupportedType(ImageFormat)
    /// The saved file's extension names no attachment type iOS accepts.
    case unsupportedExtension(fileName: String)
    /// JPEG/PNG/GIF bytes under a file extension of another type (e.g. a PNG named .jpg).
    case extensionMismatch(actual: ImageFormat, fileName: String)
    /// The download did not finish within its own timeout (on iOS the SDK's 30 s resource
    /// timeout, which only a budget longer than 30 s lets pass before the expiry).
    case timedOut(afterMs: Int64)
    /// The budget expired (or the extension was killed) while downloading.
    case cancelled
    case tlsFailed(String)
    case networkError(String)
    case saveFailed(String)

    /// A stable short code for reports and scripts.
    public var code: String {
        switch self {
        case .invalidURL: return "invalid-url"
        case .insecureURL: return "insecure-url"
        case .insecureRedirect: return "insecure-redirect"
        case .tooManyRedirects: return "too-many-redirects"
        case .redirectWithoutLocation: return "redirect-without-location"
        case .httpStatus: return "http-status"
        case .emptyBody: return "empty-body"
        case .tooLarge: return "too-large"
        case .notAnImage: return "not-an-image"
        case .unsupportedType: return "unsupported-type"
        case .unsupportedExtension: return "unsupported-extension"
        case .extensionMismatch: return "extension-mismatch"
        case .timedOut: return "timed-out"
        case .cancelled: return "cancelled-at-expiry"
        case .tlsFailed: return "tls-failed"
        case .networkError: return "network-error"
        case .saveFailed: return "save-failed"
        }
    }

    public var reason: String {
        switch self {
        case .invalidURL(let url): return "CIO.push.image '\(url)' is not a valid URL"
        case .insecureURL(let url): return "App Transport Security blocks plain-http image \(url)"
        case .insecureRedirect(let from, let to): return "redirect from \(from) to plain-http \(to) is blocked by App Transport Security"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .redirectWithoutLocation(let status): return "HTTP \(status) redirect without a Location header"
        case .httpStatus(let status): return "image server answered HTTP \(status)"
        case .emptyBody: return "image response body is empty (0 bytes)"
        case .tooLarge(let limit): return "image exceeds iOS's \(limit / (1024 * 1024)) MB attachment limit (transfer aborted)"
        case .notAnImage(let type): return "downloaded bytes are not an image (Content-Type: \(type ?? "none"))"
        case .unsupportedType(let f): return f == .bmp
            ? "image is BMP: listed by Customer.io but not an iOS attachment type, may not display"
            : "image is \(f.rawValue.uppercased()), not an iOS attachment type (JPEG, PNG, GIF)"
        case .unsupportedExtension(let name): return "saved file '\(name)' has no JPEG/PNG/GIF extension, so iOS cannot type the attachment"
        case .extensionMismatch(let actual, let name): return "file '\(name)' holds \(actual.rawValue.uppercased()) bytes but its extension names another type; iOS refuses the attachment"
        case .timedOut(let ms): return "download did not finish within its \(ms) ms timeout"
        case .cancelled: return "download cancelled when the budget expired"
        case .tlsFailed(let why): return "TLS failed: \(why)"
        case .networkError(let why): return "download failed: \(why)"
        case .saveFailed(let why): return "could not save the image: \(why)"
        }
    }

    public var fix: String {
        switch self {
        case .invalidURL: return "send an absolute https URL in CIO.push.image"
        case .insecureURL, .insecureRedirect: return "serve the image (and every redirect) over https"
        case .tooManyRedirects, .redirectWithoutLocation: return "link the image's final URL directly"
        case .httpStatus: return "check that the image URL exists and is public"
        case .emptyBody: return "check the image file on the server"
        case .tooLarge: return "keep push images under 10 MB (Customer.io recommends far less; Android: 1 MB)"
        case .notAnImage: return "link the image file itself, not a page"
        case .unsupportedType: return "convert the image to JPEG, PNG or GIF"
        case .unsupportedExtension, .extensionMismatch: return "make the URL's file extension (or Content-Disposition filename) match the image type"
        case .timedOut, .cancelled: return "serve a smaller image from a faster host (the extension has ~30 s in total)"
        case .tlsFailed: return "use a certificate iOS trusts (locally: --ca-file certs/ca.pem)"
        case .networkError: return "check that the image host is reachable"
        case .saveFailed: return "check the temporary directory"
        }
    }
}
