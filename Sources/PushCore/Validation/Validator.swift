import Foundation

/// Options for one validation run.
public struct ValidationOptions: Sendable {
    public var scope: RuleScope
    /// APNs request metadata (headers, token) to check beside the payload. Empty for a plain
    /// payload file; the push type is then inferred from the payload.
    public var apns: APNsRequest
    /// The body size as it arrived (gateway); nil applies the limit to the minified size (what
    /// pushlab sends).
    public var receivedByteCount: Int?
    /// Inputs larger than this are refused before parsing (`validate(bytes:)`).
    public var maxInputBytes: Int
    public var maxDepth: Int

    public init(scope: RuleScope = .all, apns: APNsRequest = APNsRequest(), receivedByteCount: Int? = nil,
                maxInputBytes: Int = 1 << 20, maxDepth: Int = 512) {
        self.scope = scope
        self.apns = apns
        self.receivedByteCount = receivedByteCount
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
    }
}

/// Runs the rule catalog over a payload. Shared by `pushlab validate`, the senders' pre-flight
/// and the gateway emulator (with `scope: .serviceEnforced` it reports only what the real
/// service rejects; each APNs-enforced rule names its APNs reason).
public struct Validator: Sendable {
    public var options: ValidationOptions

    public init(options: ValidationOptions = ValidationOptions()) { self.options = options }

    /// Parses and validates raw bytes; a parse failure is a finding with line and column.
    public func validate(bytes: [UInt8], as format: PayloadFormat? = nil) -> ValidationReport {
        let parser = JSONParser(options: .init(maxDepth: options.maxDepth, maxBytes: options.maxInputBytes))
        do {
            return validate(try parser.parse(bytes), as: format)
        } catch {
            var report = ValidationReport(format: format, findings: [parseFinding(error, format: format ?? .apns)])
            report.unparsable = true
            return report
        }
    }

    /// Validates a parsed document; findings get line and column from its source.
    public func validate(_ document: JSONDocument, as format: PayloadFormat? = nil) -> ValidationReport {
        var report = validate(document.root, as: format)
        if !document.source.isEmpty {
            let offsets = report.findings.map { $0.pointer.flatMap(document.offset(of:)) }
            let locations = document.locations(ofOffsets: offsets.compactMap { $0 })
            for (k, offset) in offsets.enumerated() {
                if let offset { report.findings[k].location = locations[offset] }
            }
        }
        return report
    }

    /// Validates a value built in code (no locations).
    public func validate(_ root: JSONValue, as format: PayloadFormat? = nil) -> ValidationReport {
        let format = format ?? PayloadFormat.detect(root)
        var c = FindingCollector(scope: options.scope)
        JSONChecks.duplicateKeys(root, into: &c)
        var report = ValidationReport(format: format, findings: [])
        switch format {
        case .apns:
            let r = APNsChecks.request(root, context: options.apns, receivedByteCount: options.receivedByteCount, into: &c)
            report.pushType = r.pushType
            report.byteCount = r.byteCount
            report.byteLimit = r.byteLimit
        case .simulator:
            SimulatorChecks.file(root, into: &c)
            let payload = SimulatorFile(root: root)?.payload ?? root
            let r = APNsChecks.request(payload, context: options.apns, receivedByteCount: nil, into: &c)
            report.pushType = r.pushType
            report.byteCount = r.byteCount
            report.byteLimit = r.byteLimit
        case .fcm:
            let r = FCMChecks.request(root, into: &c)
            report.byteCount = r.byteCount
            report.byteLimit = r.byteLimit
            report.pushType = r.pushType
        }
        report.findings = c.finish()
        return report
    }

    /// Maps a parse error to its rule: comments, encoding and depth have their own ids.
    func parseFinding(_ error: JSONParseError, format: PayloadFormat) -> ValidationFinding {
        let rule: ValidationRule
        switch error.reason {
        case .comment: rule = RuleCatalog.jsonComments
        case .invalidUTF8, .binaryData, .byteOrderMark: rule = RuleCatalog.jsonEncoding
        case .nestingTooDeep: rule = RuleCatalog.jsonDepth
        case .empty: rule = format == .fcm ? RuleCatalog.jsonSyntax : RuleCatalog.apnsPayloadEmpty
        case .tooLarge: rule = format == .fcm ? RuleCatalog.fcmSizeMax : RuleCatalog.apnsSizeMax
        default: rule = RuleCatalog.jsonSyntax
        }
        return ValidationFinding(rule: rule, pointer: nil, message: error.message, fix: error.fix,
                                 location: JSONSourceLocation(offset: error.offset, line: error.line, column: error.column))
    }
}

extension JSONValue {
    var isContainer: Bool {
        switch self { case .object, .array: true; default: false }
    }
}
