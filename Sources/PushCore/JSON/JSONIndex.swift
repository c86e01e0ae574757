import Foundation

/// A valid JSON document read down to the members a reader names, as one flat list of values
/// over the source bytes: objects list only the members named in `JSONMemberNames` (at any
/// depth, with their whole values), every other member's value is validated and skipped.
/// Nothing else is built — no tree, no strings until a reader asks for one — so checking a
/// few fields of a body that carries much more (the metrics collector's `/v1/b` batches, each
/// event with a CDP `context`) costs one pass over the bytes and one list.
///
/// It walks the same `JSONByteReader` as `JSONParser` and `JSONObjectSkimmer` and hands every
/// scalar and every error to the parser's own routines, so it accepts exactly what
/// `JSONParser` accepts (`JSONIndexTests`); on input the parser refuses it is nil, and a
/// caller that shows the error parses with `JSONParser`.
public final class JSONIndex: Sendable {
    public typealias Kind = JSONValueKind

    /// 28 bytes (offsets and positions stored as 32 bits, read as `Int`): a body's list fits one
    /// small allocation (`JSONIndexBuilder` reserves 32).
    struct Entry: Sendable {
        var kind: Kind
        /// A string written with escapes (decoded when read).
        var escaped = false
        private var offsets: (start: Int32, end: Int32, keyStart: Int32, keyEnd: Int32, firstChild: Int32, next: Int32)

        init(kind: Kind, start: Int, keyStart: Int, keyEnd: Int) {
            self.kind = kind
            offsets = (Int32(start), Int32(start), Int32(keyStart), Int32(keyEnd), -1, -1)
        }

        /// Strings: the bytes between the quotes; other values: the value's bytes.
        var start: Int { get { Int(offsets.start) } set { offsets.start = Int32(newValue) } }
        var end: Int { get { Int(offsets.end) } set { offsets.end = Int32(newValue) } }
        /// A member's key: the raw bytes between its quotes, or, for a key written with escapes,
        /// `keyStart` -1 and `keyEnd` its index in `decodedKeys`; `keyStart` -2 for array
        /// elements and the root.
        var keyStart: Int { Int(offsets.keyStart) }
        var keyEnd: Int { Int(offsets.keyEnd) }
        /// Containers: the first listed child; -1 for none.
        var firstChild: Int { get { Int(offsets.firstChild) } set { offsets.firstChild = Int32(newValue) } }
        /// The next listed member or element of the same container; -1 for none.
        var next: Int { get { Int(offsets.next) } set { offsets.next = Int32(newValue) } }
    }

    /// The largest document indexed: offsets are 32-bit.
    public static let maxBytes = Int(Int32.max)

    public let source: [UInt8]
    let entries: [Entry]
    let decodedKeys: [String]

    /// Nil when `bytes` is not JSON (as `JSONParser` with the same `maxDepth` decides), or is
    /// longer than `maxBytes` (then parse it with `JSONParser`).
    public init?(_ bytes: [UInt8], keepingMembersNamed names: JSONMemberNames, maxDepth: Int = JSONParser.Options().maxDepth) {
        guard bytes.count <= Self.maxBytes else { return nil }
        var entries: [Entry] = []
        var keys: [String] = []
        let ok: Bool = bytes.withUnsafeBufferPointer { buf in
            var reader = JSONByteReader(buf: buf, maxDepth: maxDepth)
            var builder = JSONIndexBuilder(names: names)
            do throws(JSONParseFailure) {
                try reader.indexDocument(into: &builder)
            } catch {
                return false
            }
            entries = builder.entries
            keys = builder.decodedKeys
            return true
        }
        guard ok else { return nil }
        source = bytes
        self.entries = entries
        decodedKeys = keys
    }

    /// The document's root value.
    public var root: Value { Value(index: self, position: 0) }

    /// One value of the document.
    public struct Value: Sendable {
        let index: JSONIndex
        let position: Int

        private var entry: Entry { index.entries[position] }

        public var kind: Kind { entry.kind }
        public var isNull: Bool { kind == .null }
        public var isObject: Bool { kind == .object }
        public var isString: Bool { kind == .string }

        /// As `JSONValue.typeName`: `string`, `number`, `boolean`, `null`, `array`, `object`.
        public var typeName: String { kind.typeName }

        public var stringValue: String? {
            let e = entry
            guard e.kind == .string else { return nil }
            return index.source.withUnsafeBufferPointer { buf in
                guard e.escaped else { return String(decoding: UnsafeBufferPointer(rebasing: buf[e.start..<e.end]), as: UTF8.self) }
                // Validated when indexed, so the parser's decoding cannot fail here.
                var reader = JSONByteReader(buf: buf, maxDepth: 1)
                reader.i = e.start - 1
                return (try? reader.parseString()) ?? ""
            }
        }

        /// True when this is a string whose text is exactly `text` (no string built).
        public func isString(_ text: String) -> Bool {
            let e = entry
            guard e.kind == .string else { return false }
            guard !e.escaped else { return stringValue == text }
            return index.source.withUnsafeBufferPointer { buf in
                var text = text
                return text.withUTF8 { t in
                    t.count == e.end - e.start && (t.isEmpty || memcmp(t.baseAddress!, buf.baseAddress! + e.start, t.count) == 0)
                }
            }
        }

        public var numberValue: JSONNumber? {
            let e = entry
            guard e.kind == .number else { return nil }
            return JSONNumber(literal: String(decoding: index.source[e.start..<e.end], as: UTF8.self))
        }

        public var boolValue: Bool? {
            let e = entry
            guard e.kind == .bool else { return nil }
            return index.source[e.start] == UInt8(ascii: "t")
        }

        /// The last listed member named `key` (duplicates: the last wins, as in `JSONObject`);
        /// nil for non-objects, absent members and members not named when indexing.
        public func member(_ key: String) -> Value? {
            let e = entry
            guard e.kind == .object else { return nil }
            var key = key
            return key.withUTF8 { wanted in
                index.source.withUnsafeBufferPointer { buf in
                    var found: Int?
                    var c = e.firstChild
                    while c >= 0 {
                        let m = index.entries[c]
                        if m.keyStart >= 0 {
                            if m.keyEnd - m.keyStart == wanted.count, wanted.isEmpty || memcmp(wanted.baseAddress!, buf.baseAddress! + m.keyStart, wanted.count) == 0 {
                                found = c
                            }
                        } else if m.keyStart == -1, index.decodedKeys[m.keyEnd].utf8.elementsEqual(wanted) {
                            found = c
                        }
                        c = m.next
                    }
                    return found.map { Value(index: index, position: $0) }
                }
            }
        }

        /// An object's listed members in order, duplicates included; nil for non-objects.
        public var members: [(key: String, value: Value)]? {
            let e = entry
            guard e.kind == .object else { return nil }
            var members: [(key: String, value: Value)] = []
            var c = e.firstChild
            while c >= 0 {
                let m = index.entries[c]
                let key = m.keyStart == -1 ? index.decodedKeys[m.keyEnd] : String(decoding: index.source[m.keyStart..<m.keyEnd], as: UTF8.self)
                members.append((key, Value(index: index, position: c)))
                c = m.next
            }
            return members
        }

        /// An array's elements in order; nil for non-arrays.
        public var elements: [Value]? {
            let e = entry
            guard e.kind == .array else { return nil }
            var values: [Value] = []
            values.reserveCapacity(8)
            var c = e.firstChild
            while c >= 0 {
                values.append(Value(index: index, position: c))
                c = index.entries[c].next
            }
            return values
        }

        /// What the index lists here, as a `JSONValue`: objects hold only their listed members.
        /// For a document the parser reads, this equals `keepingMembers(named:)` of its value
        /// with the index's names (JSONIndexTests and Fuzz/FuzzJSON check it).
        public var listedValue: JSONValue {
            switch kind {
            case .null: .null
            case .bool: .bool(boolValue!)
            case .number: .number(numberValue!)
            case .string: .string(stringValue!)
            case .array: .array(JSONArray(elements!.map(\.listedValue)))
            case .object: .object(JSONObject(members!.map { JSONMember(key: $0.key, value: $0.value.listedValue) }))
            }
        }
    }
}

extension JSONValue {
    /// This value with every object, at any depth, cut down to its members named in `names`,
    /// in order (duplicates kept): what a `JSONIndex` of the same document lists.
    public func keepingMembers(named names: JSONMemberNames) -> JSONValue {
        switch self {
        case .object(let o):
            .object(JSONObject(o.members.filter { names.contains($0.key) }.map { JSONMember(key: $0.key, value: $0.value.keepingMembers(named: names)) }))
        case .array(let a): .array(JSONArray(a.elements.map { $0.keepingMembers(named: names) }))
        default: self
        }
    }
}

/// The list `JSONIndex` is built into, with the names it keeps.
struct JSONIndexBuilder {
    let names: JSONMemberNames
    var entries: [JSONIndex.Entry] = []
    var decodedKeys: [String] = []

    init(names: JSONMemberNames) {
        self.names = names
        entries.reserveCapacity(32)
    }

    /// Appends `entry` as the next child after `previous` of `parent` (-1: the root).
    mutating func append(_ entry: JSONIndex.Entry, parent: Int, after previous: Int) -> Int {
        let position = entries.count
        entries.append(entry)
        if previous >= 0 {
            entries[previous].next = position
        } else if parent >= 0 {
            entries[parent].firstChild = position
        }
        return position
    }
}

extension JSONByteReader {
    mutating func indexDocument(into builder: inout JSONIndexBuilder) throws(JSONParseFailure) {
        if buf.count >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF { throw JSONParseFailure(reason: .byteOrderMark, offset: 0) }
        try skipWhitespace()
        guard i < buf.count else { throw JSONParseFailure(reason: .empty, offset: i) }
        _ = try indexValue(into: &builder, parent: -1, after: -1, keyStart: -2, keyEnd: 0)
        try skipWhitespace()
        if i < buf.count { throw JSONParseFailure(reason: .trailingContent, offset: i) }
    }

    /// Lists the value at `i` as a child of `parent` and returns its position.
    private mutating func indexValue(into b: inout JSONIndexBuilder, parent: Int, after previous: Int,
                                     keyStart: Int, keyEnd: Int) throws(JSONParseFailure) -> Int {
        guard i < buf.count else { throw JSONParseFailure(reason: .unexpectedEnd(expected: "a value"), offset: i) }
        let start = i
        var entry = JSONIndex.Entry(kind: .null, start: start, keyStart: keyStart, keyEnd: keyEnd)
        switch buf[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Listed before its children, so they can be linked to it.
            entry.kind = buf[i] == UInt8(ascii: "{") ? .object : .array
            let position = b.append(entry, parent: parent, after: previous)
            if entry.kind == .object {
                try indexObject(into: &b, position: position)
            } else {
                try indexArray(into: &b, position: position)
            }
            b.entries[position].end = i
            return position
        case UInt8(ascii: "\""):
            entry.kind = .string
            entry.start = start + 1
            if let raw = try skimString() {
                entry.end = raw.upperBound
            } else {
                entry.escaped = true
                entry.end = i - 1
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            entry.kind = .number
            entry.end = try scanNumber().upperBound
        default:
            // Literals and every error, as the parser does them.
            entry.kind = try parseValue() == .null ? .null : .bool
            entry.end = i
        }
        return b.append(entry, parent: parent, after: previous)
    }

    /// As `skimObject`, listing the members `b.names` names.
    private mutating func indexObject(into b: inout JSONIndexBuilder, position: Int) throws(JSONParseFailure) {
        if try openContainer(closedBy: UInt8(ascii: "}")) { return }
        var previous = -1
        repeat {
            guard i < buf.count, buf[i] == UInt8(ascii: "\"") else { throw JSONParseFailure(reason: .unquotedKey, offset: i) }
            let keyOpen = i
            var keyStart: Int, keyEnd: Int
            let listed: Bool
            if let raw = try skimString() {
                keyStart = raw.lowerBound
                keyEnd = raw.upperBound
                listed = b.names.contains(UnsafeBufferPointer(rebasing: buf[raw]))
            } else {
                // Rare: a key written with escapes is compared decoded, as the parser would.
                i = keyOpen
                let key = try parseString()
                listed = b.names.contains(key)
                keyStart = -1
                keyEnd = b.decodedKeys.count
                if listed { b.decodedKeys.append(key) }
            }
            try skimColon()
            if listed {
                previous = try indexValue(into: &b, parent: position, after: previous, keyStart: keyStart, keyEnd: keyEnd)
            } else {
                try skimValue()
            }
        } while try continueContainer(closedBy: UInt8(ascii: "}"))
    }

    /// As `skimArray`, listing every element.
    private mutating func indexArray(into b: inout JSONIndexBuilder, position: Int) throws(JSONParseFailure) {
        if try openContainer(closedBy: UInt8(ascii: "]")) { return }
        var previous = -1
        repeat {
            try requireElement()
            previous = try indexValue(into: &b, parent: position, after: previous, keyStart: -2, keyEnd: 0)
        } while try continueContainer(closedBy: UInt8(ascii: "]"))
    }
}
