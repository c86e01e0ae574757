import Foundation

/// A loopback TCP port that is certain to refuse connections: a socket bound to 127.0.0.1:0 and
/// never listening. The port stays reserved while this value lives, so no other process can take
/// it (a fixed "closed" port like 9, or a port freed after a probe, can be in use by someone else).
public final class ClosedPort: @unchecked Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestEnvironmentError("socket(): errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw TestEnvironmentError("bind(127.0.0.1:0): errno \(errno)")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `https://127.0.0.1:<port>`
    public var httpsURL: String { "https://127.0.0.1:\(port)" }

    deinit { close(descriptor) }
}
