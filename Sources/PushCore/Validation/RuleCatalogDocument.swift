import Foundation

// docs/validation.md is generated from the catalog (`pushlab validate --rules --markdown`), and a
// test checks that the committed file matches, so the page never drifts from the rules.
extension RuleCatalog {
    static let sections: [(title: String, rules: [ValidationRule])] = [
        ("JSON", json), ("APNs request: size, headers, push type, device token", apnsRequest),
        ("The aps dictionary", aps), ("Live Activity", liveActivity), ("Customer.io", cio),
        ("FCM HTTP v1", fcm), ("Simulator .apns files", simulator),
    ]

    /// The whole docs/validation.md page.
    public static func markdown() -> String {
        var out = """
        # Payload validation rules

        `pushlab validate` (and the senders' pre-flight, and the gateway emulator) check payloads
        against one ordered catalog of rules. Each rule has a stable id, a severity and who enforces it:

        - **error** — the service rejects it, or iOS / the Customer.io SDK silently drops something
          (no image, no extension run, no delivered metric). `pushlab validate` exits 1.
        - **warning** — a likely mistake. Exit 0, or 1 with `--strict`.
        - **info** — worth knowing; never fails.

        *Enforced by* says who acts on it: `APNs` / `FCM` reject the request (for APNs with the reason
        shown — the gateway emulator answers with it), `iOS` and `Customer.io SDK` drop something on
        the device, `lint` is pushlab's own advice. Programs choose `RuleScope.serviceEnforced` to
        run only what the services reject.

        Formats are detected from the content: a top-level `message` is an FCM v1 request; a
        `Simulator Target Bundle` key (or a `.apns` file name) is a simulator file; anything else
        is an APNs payload. `--format` overrides. Header rules need the header: pass
        `--push-type`, `--priority`, `--topic`, `--collapse-id`, `--token` (or, for FCM, put them
        in `message.apns.headers`). Sizes are measured on the minified JSON, and that is what pushlab
        sends: `send apns` and `send fcm` send a payload file minified whatever its indentation,
        so "3943/4096 bytes minified, as sent" is the size of the body the service receives. For
        FCM, pushlab counts the `message` object without its target as the "message content".
        A file that does not parse as JSON (the `json.*` rules below that a parser reports:
        syntax, comments, encoding, nesting, an empty file) is unreadable input: exit 2 from
        `validate` as from every other command, with the finding's line and column.

        Every rule has a sample under `payloads/invalid/<rule id>.json` and an entry in
        `payloads/invalid/expected.json`; the tests check that each fires there and nowhere in the good
        samples. This page is generated: `pushlab validate --rules --markdown > docs/validation.md`.

        """
        for (title, rules) in sections {
            out += "\n## \(title)\n\n| id | severity | enforced by | rule | fix |\n| --- | --- | --- | --- | --- |\n"
            for r in rules {
                let enforced = r.apnsReason.map { "APNs: \(r.apnsStatus.map { "\($0) " } ?? "")\($0)" } ?? r.enforcedBy.rawValue
                out += "| `\(r.id)` | \(r.severity.rawValue) | \(enforced) | \(cell(r.summary)) | \(cell(r.fix)) |\n"
            }
        }
        out += "\n\(all.count) rules.\n"
        return out
    }

    private static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
