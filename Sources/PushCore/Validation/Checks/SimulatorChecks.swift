import Foundation

/// Checks of `.apns` simulator files.
enum SimulatorChecks {
    static func file(_ root: JSONValue, into c: inout FindingCollector) {
        guard let o = root.objectValue else { return }
        let p = JSONPointer.root / SimulatorFile.targetBundleKey
        switch o[SimulatorFile.targetBundleKey] {
        case nil:
            c.report(RuleCatalog.simulatorBundleMissing, .root, "no \"Simulator Target Bundle\" key")
        case .string(let s)? where !s.isEmpty:
            break
        case let v?:
            c.report(RuleCatalog.simulatorBundleType, p, "\"Simulator Target Bundle\" is \(v.describedForMessage); expected a bundle id string")
        }
    }
}
