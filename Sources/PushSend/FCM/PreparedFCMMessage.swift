import Foundation
import PushCore

/// An FCM v1 message (everything but its target) ready to be sent to many targets. The body
/// is pre-serialised once; each send only splices the target in.
public struct PreparedFCMMessage: Sendable {
    /// The message members other than the target, in file order.
    public let members: JSONObject
    public let validateOnly: Bool
    /// The target named in the file, if any (used when no target is given on the command line).
    public let fileTarget: FCMTarget?
    /// True when a bare APNs payload was wrapped under `message.apns.payload`.
    public let wrappedAPNsPayload: Bool
    /// The rule catalog's warnings, when the message was checked on reading.
    public private(set) var warnings: [ValidationFinding] = []
    // The body around the target member, as bytes: each send only splices the target in.
    private let prefix: [UInt8]
    private let suffix: [UInt8]

    /// Reads a message file: a full request (`{"message": {…}}`), a bare message
    /// (`{"notification": …, "data": …, "apns": …}`), or a bare APNs payload (`{"aps": …}`),
    /// which is wrapped under `message.apns.payload` (docs/specs/fcm.md: how a rich push reaches iOS).
    /// With `validate` the rule catalog checks it as sent to the file's own target (see
    /// `validate(for:source:)`), so every caller gets the same pre-flight.
    public init(document: JSONDocument, validateOnly: Bool, validate checks: Bool = true) throws(FCMMessageError) {
        guard case .object(let root) = document.root else { throw .notAnObject }
        var message: JSONObject
        var wrapped = false
        var onlyValidate = validateOnly
        if let m = root["message"] {
            guard case .object(let o) = m else { throw .messageNotAnObject }
            message = o
            if root["validate_only"]?.boolValue == true { onlyValidate = true }
        } else if root["aps"] != nil {
            message = JSONObject([JSONMember(key: "apns", value: .object(JSONObject([JSONMember(key: "payload", value: document.root)])))])
            wrapped = true
        } else {
            message = root
        }
        var target: FCMTarget?
        for key in FCMTarget.fieldNames {
            guard let v = message[key] else { continue }
            guard let s = v.stringValue else { throw .targetNotAString(key) }
            if target != nil { throw .severalTargets }
            target = FCMTarget(field: key, value: s)
        }
        message.members.removeAll { FCMTarget.fieldNames.contains($0.key) }
        try self.init(members: message, validateOnly: onlyValidate, fileTarget: target, wrapped: wrapped)
        if checks { warnings = try self.validate(for: target) }
    }

    public init(members: JSONObject, validateOnly: Bool, fileTarget: FCMTarget? = nil, wrapped: Bool = false) throws(FCMMessageError) {
        self.members = members
        self.validateOnly = validateOnly
        self.fileTarget = fileTarget
        wrappedAPNsPayload = wrapped
        // `validate_only` only when true: false is FCM's default, and firebase-admin (gorush) leaves it out.
        prefix = Array((validateOnly ? "{\"validate_only\":true,\"message\":{" : "{\"message\":{").utf8)
        let full = JSONValue.object(members).minifiedString
        // `{…}` without its braces: the members to append after the target.
        let inner = String(full.dropFirst().dropLast())
        suffix = Array((inner.isEmpty ? "}}" : "," + inner + "}}").utf8)
    }

    /// Runs the rule catalog over the request as it will be sent to `target` and returns its
    /// warnings; errors are thrown as `.invalid`, each prefixed by `source` (the file) when given.
    /// Without a target (bulk: the tokens are not known yet) a well-formed stand-in token keeps
    /// the token-target rules (size limit 4096, not the topic limit) in force. The token itself
    /// is not judged here: the client checks each target with a clearer message.
    public func validate(for target: FCMTarget?, source: String? = nil) throws(FCMMessageError) -> [ValidationFinding] {
        let standIn = "pushlab-preflight:APA91b" + String(repeating: "x", count: 130)
        let request = JSONValue.object(JSONObject([
            JSONMember(key: "validate_only", value: .bool(validateOnly)),
            JSONMember(key: "message", value: .object(message(for: target ?? fileTarget ?? .token(standIn)))),
        ]))
        var report = Validator().validate(request, as: .fcm)
        report.findings.removeAll { ["/message/token", "/message/fid"].contains($0.pointer?.description) }
        let errors = report.errors.map { "\(source.map { $0 + " " } ?? "")\($0.place): \($0.message) — fix: \($0.fix)" }
        if !errors.isEmpty { throw .invalid(errors) }
        return report.warnings
    }

    /// The request body for one target, written in one buffer (a bulk send builds one per message).
    public func body(for target: FCMTarget) -> [UInt8] {
        let name = target.fieldName
        var body: [UInt8] = []
        body.reserveCapacity(prefix.count + name.utf8.count + target.value.utf8.count + 8 + suffix.count)
        body += prefix
        body.append(UInt8(ascii: "\""))
        body += name.utf8
        body += #"":"#.utf8
        JSONValue.appendQuoted(target.value, to: &body)
        body += suffix
        return body
    }

    /// The full message with its target, as JSON (validation, `--verbose`).
    public func message(for target: FCMTarget) -> JSONObject {
        var m = members
        m.members.insert(JSONMember(key: target.fieldName, value: .string(target.value)), at: 0)
        return m
    }
}

/// Why a message file cannot be sent. Each case says where and what to change.
public enum FCMMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    case notAnObject
    case messageNotAnObject
    case targetNotAString(String)
    case severalTargets
    case noTarget
    case badTarget(String)
    case invalid([String])

    public var description: String {
        switch self {
        case .notAnObject: return "the message file must be a JSON object: {\"message\": {…}}, a bare message, or an APNs payload {\"aps\": …}"
        case .messageNotAnObject: return "/message must be a JSON object"
        case .targetNotAString(let key): return "/message/\(key) must be a string"
        case .severalTargets: return "the message names more than one of fid, token, topic, condition; FCM needs exactly one"
        case .noTarget: return "no target: pass --fid, --token, --topic or --condition (or put one in the message)"
        case .badTarget(let why): return why
        case .invalid(let problems):
            return "the message does not validate:\n  " + problems.joined(separator: "\n  ")
                + "\n  (fix it, or pass --no-validate to send it anyway and see what FCM answers)"
        }
    }
}
