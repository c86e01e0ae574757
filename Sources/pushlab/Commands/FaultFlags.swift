import PushCore

/// The fault-plan flags of `pushlab serve` and `pushlab collector`: one syntax, one seed flag,
/// read the same way (docs/gateway.md "Fault plans", docs/metrics.md).
enum FaultFlags {
    /// `example` is a rule for the command's own routes, shown in `--help`.
    static func options(example: String, docs: String) -> [OptionSpec] {
        [
            .value("--fault", name: "SPEC", help: "A fault rule, e.g. \(example).", repeatable: true),
            .value("--fault-plan", name: "FILE", help: "A JSON fault plan (\(docs)); --fault rules are added after it."),
            .value("--fault-seed", "--seed", name: "N", help: "Seed of the fault plan; overrides the file's seed.", default: "the file's, else 0"),
        ]
    }

    /// The plan: the file's rules, then the --fault rules, seeded by --fault-seed when given.
    static func plan(_ args: ParsedArguments) throws -> FaultPlan {
        var seed: UInt64?
        if let raw = args.value("--fault-seed") {
            guard let s = UInt64(raw) else { throw UsageError("--fault-seed '\(raw)': expected a whole number ≥ 0", fix: "e.g. --fault-seed 7") }
            seed = s
        }
        return try plan(file: args.value("--fault-plan"), flags: args.all("--fault"), seed: seed)
    }

    static func plan(file: String?, flags: [String], seed: UInt64?) throws(UsageError) -> FaultPlan {
        do {
            var plan = FaultPlan()
            if let file { plan = try FaultPlan.load(path: file) }
            plan = plan.merging(try FaultPlan.parse(flags: flags))
            if let seed { plan.seed = seed }
            return plan
        } catch {
            throw UsageError("\(error)", fix: error.fix)
        }
    }
}
