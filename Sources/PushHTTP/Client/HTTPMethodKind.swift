/// The request methods libcurl treats specially, recognised without allocating.
enum HTTPMethodKind: Equatable {
    case get, head, post, put, patch, other

    init(_ method: String) {
        switch method {
        case "GET", "get": self = .get
        case "POST", "post": self = .post
        case "HEAD", "head": self = .head
        case "PUT", "put": self = .put
        case "PATCH", "patch": self = .patch
        default:
            switch method.uppercased() {
            case "GET": self = .get
            case "POST": self = .post
            case "HEAD": self = .head
            case "PUT": self = .put
            case "PATCH": self = .patch
            default: self = .other
            }
        }
    }

    /// Methods sent with a body (possibly empty) rather than as a GET-like request.
    var expectsBody: Bool { self == .post || self == .put || self == .patch }
}
