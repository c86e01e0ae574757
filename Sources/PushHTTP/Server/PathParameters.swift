/// The values of a matched route's `{name}` segments (`ServerRequest.pathParameters`), read by
/// name like a dictionary. Every route has one or two parameters, so the first is kept inline
/// and only further ones in an array: a request allocates no dictionary storage and hashes no
/// name (a `[String: String]` here cost the APNs route a hash table per request,
/// benchmarks/results/gateway-profile.md, session 16).
public struct PathParameters: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    private struct Pair: Sendable {
        var name: String
        var value: String
    }

    private var first: Pair?
    /// The second and later parameters, in the order they were set.
    private var more: [Pair] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The value bound to `name`; setting an existing name replaces its value, setting nil removes it.
    public subscript(_ name: String) -> String? {
        get {
            if let first, first.name == name { return first.value }
            for pair in more where pair.name == name { return pair.value }
            return nil
        }
        set {
            // `more` is empty whenever `first` is nil (removing the first moves the next one up).
            guard let value = newValue else {
                if first?.name == name { first = more.isEmpty ? nil : more.removeFirst() } else { more.removeAll { $0.name == name } }
                return
            }
            if first?.name == name {
                first!.value = value
            } else if let index = more.firstIndex(where: { $0.name == name }) {
                more[index].value = value
            } else if first == nil {
                first = Pair(name: name, value: value)
            } else {
                more.append(Pair(name: name, value: value))
            }
        }
    }

    public var count: Int { (first == nil ? 0 : 1) + more.count }
    public var isEmpty: Bool { first == nil }

    /// Every name and its value.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        if let first { result[first.name] = first.value }
        for pair in more { result[pair.name] = pair.value }
        return result
    }

    /// Equal when they bind the same names to the same values, in any order.
    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool { lhs.dictionary == rhs.dictionary }

    public var description: String { dictionary.description }
}
