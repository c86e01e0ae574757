import Foundation

/// Document-wide JSON checks.
enum JSONChecks {
    static func duplicateKeys(_ value: JSONValue, into c: inout FindingCollector) {
        var path: [String] = []
        walk(value, &path, &c)
    }

    private static func walk(_ value: JSONValue, _ path: inout [String], _ c: inout FindingCollector) {
        switch value {
        case .object(let o):
            if o.hasDuplicateKeys {
                for (key, members) in o.duplicateKeys {
                    c.report(RuleCatalog.jsonDuplicateKey, JSONPointer(tokens: path + [key]),
                             "the key \"\(key)\" appears \(members.count) times in this object; pushlab and most parsers use the last one")
                }
            }
            for m in o.members where m.value.isContainer {
                path.append(m.key)
                walk(m.value, &path, &c)
                path.removeLast()
            }
        case .array(let a):
            for (i, e) in a.elements.enumerated() where e.isContainer {
                path.append(String(i))
                walk(e, &path, &c)
                path.removeLast()
            }
        default:
            break
        }
    }
}
