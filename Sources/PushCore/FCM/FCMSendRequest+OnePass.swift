import Foundation

extension FCMSendRequest {
    /// The common send request validated and typed in one pass over its bytes (the gateway's
    /// `messages:send` runs the same pass untyped: `FCMCheckedSend`), or nil when the body is
    /// not in the plain subset this reader knows to be clean. A nil is not a verdict: the caller
    /// then takes the full path
    /// (`JSONDocument`, `Validator` with `scope: .serviceEnforced`, `init(json:)`), which gives
    /// the findings. For a body it accepts, the full path finds no error and types the same request
    /// (`FCMOnePassTests` compares the two over the payload corpus and its byte mutations).
    ///
    /// The plain subset: a JSON object with `message` (an object) and optionally `validate_only`
    /// (`true`/`false`), no other key and no key twice; the message holds exactly one target
    /// (`token`, `fid`, `topic` or `condition`, whose shape `FCMChecks.targetProblem` accepts) and
    /// optionally `notification` (`title`, `body`, `image`: strings, image not a non-https URL) and
    /// `data` (string values, no reserved key, no `CIO`, at most 64 keys), its content within
    /// FCM's size limit. Strings are valid UTF-8 without escapes or control characters. Anything
    /// else (apns, android, webpush, fcm_options, name, numbers, null, arrays, escapes …) is
    /// left to the full path.
    public static func onePass(_ body: [UInt8]) -> FCMSendRequest? {
        body.withUnsafeBufferPointer { bytes in
            var reader = FCMOnePassReader(b: bytes, typed: true)
            guard let (validateOnly, parts) = reader.request() else { return nil }
            return FCMSendRequest(validateOnly: validateOnly, message: FCMMessage(target: parts.target, notification: parts.notification, data: parts.data))
        }
    }
}

/// A send request `FCMSendRequest.onePass` accepts, checked by the same pass but not typed:
/// only its target's text is built. The gateway's common send reads no more of the message (no
/// notification, data or apns strings, no `FCMMessage`); it types the message (`onePass`) only
/// for a device or sink that reads its content.
public struct FCMCheckedSend: Sendable {
    public var validateOnly: Bool?
    public var target: FCMTarget

    /// The body's checks as `FCMSendRequest.onePass` makes them, nil where it gives nil.
    public init?(onePass body: [UInt8]) {
        guard let (validateOnly, parts) = body.withUnsafeBufferPointer({ bytes in
            var reader = FCMOnePassReader(b: bytes, typed: false)
            return reader.request()
        }) else { return nil }
        self.validateOnly = validateOnly
        target = parts.target
    }
}

/// The reader behind `FCMSendRequest.onePass` and `FCMCheckedSend`: a cursor over the body;
/// every method returns nil (or false) as soon as the input leaves the plain subset.
private struct FCMOnePassReader {
    let b: UnsafeBufferPointer<UInt8>
    /// Whether the notification's and data's texts are built (`onePass`) or only checked as
    /// UTF-8 (`FCMCheckedSend`); the checks are the same either way.
    let typed: Bool
    var i = 0

    init(b: UnsafeBufferPointer<UInt8>, typed: Bool) {
        self.b = b
        self.typed = typed
    }

    /// The message fields the plain subset holds; notification and data stay empty unless `typed`.
    struct MessageParts {
        var target: FCMTarget
        var notification: FCMMessage.Notification?
        var data: [(key: String, value: String)]
    }

    /// What the next step of an object is.
    enum Step { case key(Range<Int>), end, leave }

    static let quote = UInt8(ascii: "\""), colon = UInt8(ascii: ":"), comma = UInt8(ascii: ",")
    static let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
    static let maxDataKeys = 64

    mutating func request() -> (validateOnly: Bool?, message: MessageParts)? {
        guard consume(Self.open) else { return nil }
        var message: MessageParts?, validateOnly: Bool?, n = 0
        loop: while true {
            switch nextKey(&n) {
            case .leave: return nil
            case .end: break loop
            case .key(let k):
                if equals(k, "message") {
                    guard message == nil, let m = self.message() else { return nil }
                    message = m
                } else if equals(k, "validate_only") {
                    guard validateOnly == nil, let v = bool() else { return nil }
                    validateOnly = v
                } else {
                    return nil
                }
            }
        }
        skipWhitespace()
        guard i == b.count, let message else { return nil }
        return (validateOnly, message)
    }

    /// The message; `size` follows `FCMChecks.message`: the minified content without the target.
    mutating func message() -> MessageParts? {
        guard consume(Self.open) else { return nil }
        var target: FCMTarget?, notification: FCMMessage.Notification?, data: [(key: String, value: String)]?
        var n = 0, size = 2, contentMembers = 0
        loop: while true {
            switch nextKey(&n) {
            case .leave: return nil
            case .end: break loop
            case .key(let k):
                if equals(k, "notification") {
                    guard notification == nil, let (value, valueSize) = self.notification() else { return nil }
                    notification = value
                    size += k.count + 3 + valueSize
                    contentMembers += 1
                } else if equals(k, "data") {
                    guard data == nil, let (value, valueSize) = self.data() else { return nil }
                    data = value
                    size += k.count + 3 + valueSize
                    contentMembers += 1
                } else {
                    // A target: one of them, once, with a shape the validator accepts.
                    guard target == nil, let field = FCMTarget.fieldNames.first(where: { equals(k, $0) }),
                          let value = string(), FCMChecks.targetProblem(field: field, value: value) == nil,
                          let t = FCMTarget(field: field, value: value) else { return nil }
                    target = t
                }
            }
        }
        size += max(contentMembers - 1, 0)
        guard let target, size <= target.contentLimit else { return nil }
        return MessageParts(target: target, notification: typed ? notification : nil, data: data ?? [])
    }

    /// `notification` and its minified size.
    mutating func notification() -> (FCMMessage.Notification, Int)? {
        guard consume(Self.open) else { return nil }
        var value = FCMMessage.Notification(), n = 0, size = 2, seen = 0
        loop: while true {
            switch nextKey(&n) {
            case .leave: return nil
            case .end: break loop
            case .key(let k):
                guard let f = FCMChecks.notificationKeys.names.firstIndex(where: { equals(k, $0) }), seen & (1 << f) == 0,
                      let r = plainString() else { return nil }
                let sSize = r.count + 2
                seen |= 1 << f
                switch FCMChecks.notificationKeys.names[f] {
                case "title":
                    guard let s = text(r) else { return nil }
                    value.title = s
                case "body":
                    guard let s = text(r) else { return nil }
                    value.body = s
                default:
                    guard let s = decoded(r), FCMChecks.imageProblem(s) == nil else { return nil }
                    value.image = s
                }
                size += k.count + 3 + sSize + (n > 1 ? 1 : 0)
            }
        }
        return (value, size)
    }

    /// `data` (empty unless `typed`) and its minified size.
    mutating func data() -> ([(key: String, value: String)], Int)? {
        // The keys' ranges, on the stack, find a repeated key in either mode (`typed` or not).
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.maxDataKeys) { keys in
            guard consume(Self.open) else { return nil }
            var pairs: [(key: String, value: String)] = [], n = 0, size = 2
            loop: while true {
                switch nextKey(&n) {
                case .leave: return nil
                case .end: break loop
                case .key(let k):
                    guard n <= Self.maxDataKeys, let key = decoded(k), !keys[..<(n - 1)].contains(where: { same($0, k, key) }),
                          !FCMChecks.isReservedDataKey(key), key != FCMChecks.cioDataKey,
                          let r = plainString(), let value = text(r) else { return nil }
                    keys[n - 1] = k
                    if typed { pairs.append((key, value)) }
                    size += k.count + 3 + r.count + 2 + (n > 1 ? 1 : 0)
                }
            }
            return (pairs, size)
        }
    }

    /// Whether the key at `earlier` has the text `key` (at `r`): String equality, which for two
    /// ASCII keys is their bytes' (keys are plain strings: no escapes).
    func same(_ earlier: Range<Int>, _ r: Range<Int>, _ key: String) -> Bool {
        let a = UnsafeBufferPointer(rebasing: b[earlier]), k = UnsafeBufferPointer(rebasing: b[r])
        if a.allSatisfy({ $0 < 0x80 }) && k.allSatisfy({ $0 < 0x80 }) {
            return a.count == k.count && memcmp(a.baseAddress!, k.baseAddress!, a.count) == 0
        }
        return decoded(earlier) == key
    }

    // MARK: Tokens

    /// After `{` (n == 0) or a value: the next member's key (and its `:`), the object's end, or
    /// leave. `n` counts the members read.
    mutating func nextKey(_ n: inout Int) -> Step {
        skipWhitespace()
        guard i < b.count else { return .leave }
        if b[i] == Self.close { i += 1; return .end }
        if n > 0 {
            guard b[i] == Self.comma else { return .leave }
            i += 1
        }
        guard let k = plainString(), consume(Self.colon) else { return .leave }
        n += 1
        return .key(k)
    }

    mutating func string() -> String? { plainString().flatMap(decoded) }

    /// The content range of a string without escapes, control characters or DEL; non-ASCII
    /// bytes are checked as UTF-8 by `decoded`.
    mutating func plainString() -> Range<Int>? {
        skipWhitespace()
        guard i < b.count, b[i] == Self.quote else { return nil }
        let start = i + 1
        var j = start
        while j < b.count {
            // Eight bytes at a time, with the JSON readers' word test (`bytesEndingPlainJSONText`:
            // quote, backslash, control, non-ASCII) plus DEL (0x7F + 1 sets the high bit; a byte carried into
            // sits above a flagged 0xFF): a word with none of them is passed whole, else the
            // first flagged byte goes to the byte step below, which decides as before. The
            // send request's token alone is 163 bytes.
            if j + 8 <= b.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(b.baseAddress! + j).loadUnaligned(as: UInt64.self))
                let look = UnsafeBufferPointer<UInt8>.bytesEndingPlainJSONText(word) | ((word &+ 0x0101_0101_0101_0101) & 0x8080_8080_8080_8080)
                if look == 0 {
                    j += 8
                    continue
                }
                j += look.trailingZeroBitCount >> 3
            }
            let c = b[j]
            if c == Self.quote { i = j + 1; return start..<j }
            if c < 0x20 || c == 0x7F || c == UInt8(ascii: "\\") { return nil }
            j += 1
        }
        return nil
    }

    /// The text of a string's bytes: nil when they are not valid UTF-8 (RFC 3629, as the parser).
    func decoded(_ r: Range<Int>) -> String? {
        let slice = UnsafeBufferPointer(rebasing: b[r])
        if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        return String(validating: slice, as: UTF8.self)
    }

    /// A content value's text when `typed`, else "" once its bytes are checked as `decoded`
    /// checks them (ASCII needs no string); nil when they are not valid UTF-8.
    func text(_ r: Range<Int>) -> String? {
        if typed { return decoded(r) }
        let slice = UnsafeBufferPointer(rebasing: b[r])
        if slice.allSatisfy({ $0 < 0x80 }) { return "" }
        return String(validating: slice, as: UTF8.self).map { _ in "" }
    }

    mutating func bool() -> Bool? {
        skipWhitespace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard b.count - i >= n, memcmp(b.baseAddress! + i, word.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    mutating func consume(_ c: UInt8) -> Bool {
        skipWhitespace()
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }

    /// JSON whitespace: space, tab, LF, CR.
    mutating func skipWhitespace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    func equals(_ r: Range<Int>, _ s: String) -> Bool {
        var s = s
        return s.withUTF8 { u in u.count == r.count && memcmp(b.baseAddress! + r.lowerBound, u.baseAddress!, r.count) == 0 }
    }
}
