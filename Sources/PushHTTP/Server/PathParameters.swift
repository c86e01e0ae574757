/// The values of the `{name}` segments of the route pattern a path matched. Reads like a
/// `[String: String]` (built from a dictionary literal where a test or a handler sets it by
/// hand), but a route with one parameter, such as APNs' `/3/device/{token}` or FCM's
/// `/v1/projects/{project}/messages:send`, keeps its name and value inline: binding such a path
/// allocates only the value's string, and reading it compares the name instead of hashing it. A
/// dictionary built at every match cost each APNs request to a new device token its storage and
/// two hashes of the name (benchmarks/results/gateway-profile.md).
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    // Plain stored properties, no enum or optional struct: a copy is three retains in a row, with
    // no case to switch on (an earlier `Pair?` layout made every route's dispatch dearer,
    // benchmarks/results/gateway-profile.md, session 16). `name` is "" when there is no single
    // parameter; `more` holds two or more.
    private let name: String
    private let value: String
    private let more: [String: String]?

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public init(_ values: [String: String]) {
        if values.count == 1, let only = values.first {
            self.init(name: only.key, value: only.value)
        } else {
            self.init(name: "", value: "", more: values.isEmpty ? nil : values)
        }
    }

    /// One parameter, as the router binds it.
    init(name: String, value: String) {
        // A pattern's `{}` binds the empty name, which `name` cannot tell from none.
        self.init(name: name, value: value, more: name.isEmpty ? [name: value] : nil)
    }

    private init(name: String, value: String, more: [String: String]?) {
        self.name = name
        self.value = value
        self.more = more
    }

    public subscript(name: String) -> String? {
        if let more { return more[name] }
        return !self.name.isEmpty && self.name == name ? value : nil
    }

    public var count: Int { more?.count ?? (name.isEmpty ? 0 : 1) }

    public var isEmpty: Bool { count == 0 }

    /// Every name with its value.
    public var dictionary: [String: String] { more ?? (name.isEmpty ? [:] : [name: value]) }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool { lhs.dictionary == rhs.dictionary }

    public var description: String { dictionary.description }
}
