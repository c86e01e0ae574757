/// Why the server could not start. Each case says what to change.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case noListener
    case missingCertificate
    case tlsSetupFailed(String)
    case cannotResolve(host: String, reason: String)
    case bindFailed(host: String, port: Int, reason: String)
    case eventLoopFailed(String)
    case alreadyStarted

    public var description: String {
        switch self {
        case .noListener:
            return "no listener configured; set tlsPort and/or cleartextPort (0 picks a free port)"
        case .missingCertificate:
            return "a TLS port needs certificateFile and privateKeyFile (PEM); e.g. certs/server.pem and certs/server.key"
        case .tlsSetupFailed(let why):
            return "TLS setup failed: \(why); check the PEM files (certs/README.md regenerates the dev ones)"
        case .cannotResolve(let host, let why):
            return "cannot resolve host '\(host)': \(why); pass an IP address such as 127.0.0.1 or ::1"
        case .bindFailed(let host, let port, let why):
            return "cannot listen on \(host):\(port): \(why); pick another port or pass 0 for a free one"
        case .eventLoopFailed(let why):
            return "cannot create the event loop: \(why)"
        case .alreadyStarted:
            return "the server was already started; create a new HTTPServer to start again"
        }
    }
}
