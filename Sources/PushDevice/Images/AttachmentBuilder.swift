import Foundation
import PushHTTP
import PushStore

/// Saves a downloaded image where the reference SDK does and applies iOS's attachment rules
/// (docs/specs/device-side.md §2): JPEG, PNG or GIF, at most 10 MB, file extension matching the bytes.
public struct AttachmentBuilder: Sendable {
    public static let identifierPrefix = "cio_sdk_"
    public static let directoryName = "cio_sdk"

    public var temporaryDirectory: URL
    public var identifiers: any IdentifierSource
    /// The reference SDK checks no HTTP status; iOS then judges the bytes. pushlab's improved
    /// mode refuses a non-2xx answer outright.
    public var requireSuccessStatus: Bool

    public init(temporaryDirectory: URL, identifiers: any IdentifierSource, requireSuccessStatus: Bool) {
        self.temporaryDirectory = temporaryDirectory
        self.identifiers = identifiers
        self.requireSuccessStatus = requireSuccessStatus
    }

    /// The outcome: an attachment with warnings, or why there is none.
    public func build(from download: ImageDownload) -> Result<(RichPushAttachment, [String]), ImageDropReason> {
        let ok = (200..<300).contains(download.status)
        if requireSuccessStatus && !ok { return .failure(.httpStatus(download.status)) }
        let body = download.body
        let contentType = download.headers["content-type"]
        let name = AttachmentBuilder.suggestedFileName(url: download.finalURL, headers: download.headers)
        let sniffed = ImageFormat.sniff(body)
        // What iOS would refuse, most telling reason first.
        if body.isEmpty { return .failure(ok ? .emptyBody : .httpStatus(download.status)) }
        guard let actual = sniffed else { return .failure(ok ? .notAnImage(contentType: contentType) : .httpStatus(download.status)) }
        guard actual.acceptedByIOS else { return .failure(.unsupportedType(actual)) }
        let ext = (name as NSString).pathExtension
        guard let named = ImageFormat.forFileExtension(ext), named.acceptedByIOS else { return .failure(.unsupportedExtension(fileName: name)) }
        guard named == actual else { return .failure(.extensionMismatch(actual: actual, fileName: name)) }
        guard body.count <= ImageFetcher.attachmentLimit else { return .failure(.tooLarge(limit: ImageFetcher.attachmentLimit)) }

        // Paths joined as strings: `URL.appendingPathComponent` twice per push showed in profiles.
        let base = temporaryDirectory.path
        let dir = (base.hasSuffix("/") ? base : base + "/") + AttachmentBuilder.directoryName
        let file = dir + "/" + identifiers.uuid().uuidString + "_" + name
        if let failure = AttachmentBuilder.save(body, to: file, in: dir) { return .failure(.saveFailed(failure)) }
        var warnings: [String] = []
        if !ok { warnings.append("served with HTTP \(download.status); the reference SDK does not check the status, so the image still shows") }
        let dims = ImageDimensions.read(body, format: actual)
        if let d = dims, d.exceedsRecommendation {
            warnings.append("image is \(d.width)×\(d.height) px, above Customer.io's recommended 2048×1024")
        }
        if let d = dims, d.width * d.height * 4 > 24 * 1024 * 1024 {
            warnings.append("decoding \(d.width)×\(d.height) px needs ~\(d.width * d.height * 4 / (1024 * 1024)) MB, over the extension's ~24 MB memory limit: iOS may kill it")
        }
        let attachment = RichPushAttachment(
            identifier: AttachmentBuilder.identifierPrefix + identifiers.lowercaseLetters(10),
            path: file, type: actual, size: body.count, dimensions: dims)
        return .success((attachment, warnings))
    }

    /// Writes `bytes` to a new file at `path`, creating `directory` first if needed; nil on
    /// success, else why not. Plain `open`/`write`/`close`: `Data.write(to:)` on Linux calls
    /// `fsync` on every file, which on ext4 is a writeback and a device flush per push — the
    /// extension hands the file to iOS right away, so it needs no durability of its own.
    static func save(_ bytes: [UInt8], to path: String, in directory: String) -> String? {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                return "\(error)"
            }
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot create \(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let failure = FileDescriptorWrites.writeAll(fd, bytes)
        guard failure == 0 else {
            unlink(path)
            return "cannot write \(path): \(String(cString: strerror(failure)))"
        }
        return nil
    }

    /// URLSession's `suggestedFilename`: the Content-Disposition filename, else the URL's last
    /// path component, else its host, else "unknown"; a name without an extension gets the
    /// one of its MIME type.
    public static func suggestedFileName(url: String, headers: HTTPHeaders) -> String {
        suggestedName(url: url, headers: headers).name
    }

    /// The suggested file name and where it came from, in words (for the timeline): an image
    /// URL without an extension attaches only when a header supplies one.
    public static func suggestedName(url: String, headers: HTTPHeaders) -> (name: String, source: String) {
        var name: String?
        var source = "no name in the download"
        if let disposition = headers["content-disposition"], let range = disposition.range(of: "filename=") {
            let raw = disposition[range.upperBound...].split(separator: ";").first.map(String.init) ?? ""
            let trimmed = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            if !trimmed.isEmpty { name = (trimmed as NSString).lastPathComponent; source = "Content-Disposition" }
        }
        if name == nil, let u = URL(string: url) {
            let last = u.lastPathComponent
            if !last.isEmpty && last != "/" { name = last; source = "the URL's path" } else if let host = u.host, !host.isEmpty { name = host; source = "the URL's host" }
        }
        var result = name ?? "unknown"
        if (result as NSString).pathExtension.isEmpty,
           let mime = headers["content-type"], let format = ImageFormat.forMIMEType(mime) {
            result += "." + format.preferredExtension
            source += " + the extension of Content-Type \(format.mimeType)"
        }
        return (result, source)
    }
}
