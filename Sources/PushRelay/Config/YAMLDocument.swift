import CPushLab

/// One YAML node read by libyaml's document API, with the line and column (1-based) where it
/// starts. Scalars stay text; `YAMLNode.bool`/`int` read them as YAML 1.1 does.
public struct YAMLNode: Sendable {
    public enum Value: Sendable {
        /// `plain`: unquoted (so `true`, `8088`, `~` may mean a bool, a number, null).
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        case mapping([(key: String, value: YAMLNode)])
    }
    public var value: Value
    public var line: Int
    public var column: Int

    public subscript(key: String) -> YAMLNode? {
        guard case .mapping(let pairs) = value else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    public var isNull: Bool {
        if case .scalar(let s, true) = value { return ["", "~", "null", "Null", "NULL"].contains(s) }
        return false
    }

    public var scalar: String? {
        guard case .scalar(let s, _) = value, !isNull else { return nil }
        return s
    }

    /// YAML 1.1 booleans as gorush's YAML library reads them into a bool field.
    public var bool: Bool? {
        guard case .scalar(let s, let plain) = value, plain else { return nil }
        switch s.lowercased() {
        case "true", "yes", "on", "y": return true
        case "false", "no", "off", "n": return false
        default: return nil
        }
    }

    /// A whole number, plain or quoted (gorush reads `port: "8088"` as a string and converts it).
    public var int: Int? {
        guard let s = scalar else { return nil }
        return Int(s.replacingOccurrences(of: "_", with: ""))
    }

    public var kindName: String {
        switch value {
        case .scalar: return isNull ? "null" : "a scalar"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

/// A YAML file that libyaml could not read, or a shape no config can have, at line:column.
public struct YAMLError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "\(line):\(column): \(message)" }
}

public enum YAMLDocument {
    /// Aliases make a small file a huge tree (a "billion laughs" file): past this many nodes the
    /// file is refused.
    static let maximumNodes = 100_000

    /// The first document of `bytes`, or nil when it has none (an empty file). Duplicate keys
    /// in one mapping are refused, as gorush's YAML library refuses them.
    public static func parse(_ bytes: [UInt8]) throws(YAMLError) -> YAMLNode? {
        if bytes.isEmpty { return nil }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLError(line: 1, column: 1, message: "libyaml could not start (out of memory)") }
        defer { yaml_parser_delete(&parser) }
        var document = yaml_document_t()
        let loaded: Int32 = bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            return yaml_parser_load(&parser, &document)
        }
        guard loaded == 1 else {
            var mark = parser.problem_mark
            if parser.error == YAML_READER_ERROR {
                // Encoding errors carry a byte offset, not a mark: count the lines before it.
                let offset = min(Int(parser.problem_offset), bytes.count)
                let before = bytes[..<offset]
                let lastNewline = before.lastIndex(of: 0x0A)
                mark.line = before.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                mark.column = offset - (lastNewline.map { $0 + 1 } ?? 0)
            }
            var message = parser.problem.map { String(cString: $0) } ?? "not YAML"
            if let context = parser.context {
                message += " (\(String(cString: context)) at \(parser.context_mark.line + 1):\(parser.context_mark.column + 1))"
            }
            throw YAMLError(line: Int(mark.line) + 1, column: Int(mark.column) + 1, message: message)
        }
        defer { yaml_document_delete(&document) }
        guard let root = yaml_document_get_root_node(&document) else { return nil }
        var budget = maximumNodes
        return try convert(root, in: &document, budget: &budget)
    }

    private static func convert(_ node: UnsafeMutablePointer<yaml_node_t>, in document: inout yaml_document_t,
                                budget: inout Int) throws(YAMLError) -> YAMLNode {
        let line = Int(node.pointee.start_mark.line) + 1, column = Int(node.pointee.start_mark.column) + 1
        budget -= 1
        guard budget >= 0 else {
            throw YAMLError(line: line, column: column, message: "more than \(maximumNodes) nodes once aliases are expanded; a config is never this large")
        }
        switch node.pointee.type {
        case YAML_SCALAR_NODE:
            let s = node.pointee.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: s.value, count: Int(s.length)), as: UTF8.self)
            return YAMLNode(value: .scalar(text, plain: s.style == YAML_PLAIN_SCALAR_STYLE), line: line, column: column)
        case YAML_SEQUENCE_NODE:
            var items: [YAMLNode] = []
            var item = node.pointee.data.sequence.items.start
            while let current = item, current != node.pointee.data.sequence.items.top {
                guard let child = yaml_document_get_node(&document, current.pointee) else { break }
                items.append(try convert(child, in: &document, budget: &budget))
                item = current + 1
            }
            return YAMLNode(value: .sequence(items), line: line, column: column)
        case YAML_MAPPING_NODE:
            var pairs: [(key: String, value: YAMLNode)] = []
            var pair = node.pointee.data.mapping.pairs.start
            while let current = pair, current != node.pointee.data.mapping.pairs.top {
                guard let keyNode = yaml_document_get_node(&document, current.pointee.key),
                      let valueNode = yaml_document_get_node(&document, current.pointee.value) else { break }
                let key = try convert(keyNode, in: &document, budget: &budget)
                guard case .scalar(let name, _) = key.value else {
                    throw YAMLError(line: key.line, column: key.column, message: "a key must be a plain name, not \(key.kindName)")
                }
                if pairs.contains(where: { $0.key == name }) {
                    throw YAMLError(line: key.line, column: key.column, message: "key '\(name)' is already defined in this mapping")
                }
                pairs.append((name, try convert(valueNode, in: &document, budget: &budget)))
                pair = current + 1
            }
            return YAMLNode(value: .mapping(pairs), line: line, column: column)
        default:
            return YAMLNode(value: .scalar("", plain: true), line: line, column: column)
        }
    }
}
