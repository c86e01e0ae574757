/// The values of the `{name}` segments of the route pattern a path matched. Reads like a
/// `[String: String]` (built from a dictionary literal where a test or a handler sets it by
/// hand), but a route with one parameter, such as APNs' `/3/device/{token}` or FCM's
/// `/v1/projects/{project}/messages:send`, keeps its name and value in one small object: binding
/// such a path makes no hash table and reading it compares the name instead of hashing it. It is
/// one reference wide, as the dictionary was, so a request or a route match is no larger to copy
/// (wider inline layouts made every route's dispatch dearer; benchmarks/results/gateway-profile.md,
/// sessions 16 and 21).
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One parameter (`name` and `value`), or two or more (`more`; `name` is then unused).
    private final class Bound: Sendable {
        let name: String
        let value: String
        let more: [String: String]?

        init(name: String, value: String, more: [String: String]?) {
            self.name = name
            self.value = value
            self.more = more
        }
    }

    /// nil: no parameters.
    private let bound: Bound?

    /// None: what every request carries until the router binds its route's.
    public init() { bound = nil }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.isEmpty ? [:] : Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public init(_ values: [String: String]) {
        if values.isEmpty {
            bound = nil
        } else if values.count == 1, let only = values.first {
            bound = Bound(name: only.key, value: only.value, more: nil)
        } else {
            bound = Bound(name: "", value: "", more: values)
        }
    }

    /// One parameter, as the router binds it.
    init(name: String, value: String) { bound = Bound(name: name, value: value, more: nil) }

    public subscript(name: String) -> String? {
        guard let bound else { return nil }
        if let more = bound.more { return more[name] }
        return bound.name == name ? bound.value : nil
    }

    public var count: Int {
        guard let bound else { return 0 }
        return bound.more?.count ?? 1
    }

    public var isEmpty: Bool { bound == nil }

    /// Every name with its value.
    public var dictionary: [String: String] {
        guard let bound else { return [:] }
        return bound.more ?? [bound.name: bound.value]
    }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool { lhs.dictionary == rhs.dictionary }

    public var description: String { dictionary.description }
}
