import PushCore

/// The fault-plan flags of `pushlab serve` and `pushlab collector`: one syntax, one seed flag,
/// read the same way (docs/gateway.md "Fault plans", docs/metrics.md).
struct FaultFlags: Sendable {
    let rules: TypedOption<[String]>
    let file: TypedOption<String?>
    let seed: TypedOption<UInt64?>

    /// `example` is a rule for the command's own routes, shown in `--help`.
    init(example: String, docs: String) {
        rules = Option.strings("--fault", name: "SPEC", help: "A fault rule, e.g. \(example).")
        file = Option.string("--fault-plan", name: "FILE", help: "A JSON fault plan (\(docs)); --fault rules are added after it.")
        seed = Option.value(["--fault-seed", "--seed"], name: "N", help: "Seed of the fault plan; overrides the file's seed.",
                            kind: .uint64, described: "the file's, else 0")
    }

    var options: [any OptionDeclaration] { [rules, file, seed] }

    /// The plan: the file's rules, then the --fault rules, seeded by --fault-seed when given.
    func plan(_ args: ParsedArguments) throws -> FaultPlan {
        try Self.plan(file: try args[file], flags: try args[rules], seed: try args[seed])
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
