/// Where Redis runs: `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` (port 6379, database 0 by
/// default). `description` never shows the password.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var database: Int
    public var username: String?
    public var password: String?

    public init(host: String, port: Int = 6379, database: Int = 0, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
    }

    /// Parses a `redis://` URL; the error says which part is wrong and how to write it.
    public init(url: String) throws(RedisEndpointError) {
        let scheme = "redis://"
        guard url.hasPrefix(scheme) else { throw .init(url: url, problem: "it does not start with redis://") }
        var rest = Substring(url.dropFirst(scheme.count))
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let user = credentials[..<colon]
                username = user.isEmpty ? nil : String(user)
                password = String(credentials[credentials.index(after: colon)...])
            } else {
                username = nil
                password = String(credentials)
            }
        }
        var databasePart: Substring?
        if let slash = rest.firstIndex(of: "/") {
            databasePart = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var hostPart = rest, portPart: Substring?
        if rest.hasPrefix("[") {  // [::1]:6379
            guard let close = rest.firstIndex(of: "]") else { throw .init(url: url, problem: "the IPv6 host has no closing ]") }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty {
                throw .init(url: url, problem: "unexpected text after the IPv6 host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw .init(url: url, problem: "the host is missing") }
        host = String(hostPart)
        if let portPart {
            guard let value = Int(portPart), (1...65535).contains(value) else {
                throw .init(url: url, problem: "the port '\(portPart)' is not a number from 1 to 65535")
            }
            port = value
        } else {
            port = 6379
        }
        if let databasePart, !databasePart.isEmpty {
            guard let value = Int(databasePart), value >= 0 else {
                throw .init(url: url, problem: "the database '\(databasePart)' is not a number (0, 1, …)")
            }
            database = value
        } else {
            database = 0
        }
    }

    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):<redacted>@"
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "redis://\(credentials)\(hostText):\(port)/\(database)"
    }
}

/// A `redis://` URL that cannot be used. The message names the problem and the form to use.
public struct RedisEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    public var url: String
    public var problem: String
    /// How to write it instead.
    public var form = "write redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0"

    public init(url: String, problem: String) {
        self.url = url
        self.problem = problem
    }

    public init(url: String, problem: String, form: String) {
        self.url = url
        self.problem = problem
        self.form = form
    }

    public var description: String {
        "'\(RedisEndpointError.redacted(url))' is not a Redis URL: \(problem); \(form)"
    }

    /// The URL with any password replaced.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let schemeEnd = url.range(of: "://")?.upperBound, schemeEnd <= at else { return url }
        return url[..<schemeEnd] + "<redacted>" + url[at...]
    }
}
