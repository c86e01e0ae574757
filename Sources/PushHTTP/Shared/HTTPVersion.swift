import Foundation

public enum HTTPVersion: String, Sendable, Codable {
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
}
