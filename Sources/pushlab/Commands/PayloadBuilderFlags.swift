import PushCore

/// The payload-builder flags `pushlab payload` and `pushlab send apns|fcm` have in common:
/// declared once, so both commands' `--help` comes from the same lines, and read once into
/// PushCore's `PayloadBuilder`, so a flag is checked the same way by every command. What only
/// one command has (`payload --push-type`, `send --profile` …) stays with that command.
enum PayloadBuilderFlags {
    static let options: [OptionSpec] = [
        .value("--title", name: "TEXT", help: "Alert title."),
        .value("--subtitle", name: "TEXT", help: "Alert subtitle."),
        .value("--body", name: "TEXT", help: "Alert body."),
        .value("--image", name: "URL", help: "Rich-push image (https, .jpg/.jpeg/.png/.gif) → CIO.push.image; sets mutable-content."),
        .value("--link", name: "URL", help: "Deep link or universal link opened on tap → CIO.push.link."),
        .value("--sound", name: "NAME", help: "Sound name, e.g. default."),
        .value("--badge", name: "N", help: "Badge number (0 clears it)."),
        .value("--category", name: "ID", help: "Notification category (actions)."),
        .value("--thread-id", name: "ID", help: "Thread id for grouping."),
        .value("--data", name: "KEY=VALUE", help: "Custom key (top level for APNs, message.data for FCM).", repeatable: true),
        .value("--delivery-id", name: "ID", help: "Customer.io CIO-Delivery-ID (with --delivery-token)."),
        .value("--delivery-token", name: "TOKEN", help: "Customer.io CIO-Delivery-Token (with --delivery-id)."),
        .flag("--background", help: "A silent background push (content-available, no alert)."),
    ]

    /// A builder holding these flags' values; the caller adds its own flags and builds.
    static func builder(_ args: ParsedArguments) throws -> PayloadBuilder {
        var b = PayloadBuilder()
        b.title = args.value("--title")
        b.subtitle = args.value("--subtitle")
        b.body = args.value("--body")
        b.image = args.value("--image")
        b.link = args.value("--link")
        b.sound = args.value("--sound")
        b.badge = try args.int("--badge", range: 0...Int(Int32.max))
        b.category = args.value("--category")
        b.threadID = args.value("--thread-id")
        b.deliveryID = args.value("--delivery-id")
        b.deliveryToken = args.value("--delivery-token")
        if args.flag("--background") { b.pushType = .background }
        for item in args.all("--data") {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                throw UsageError("--data takes KEY=VALUE, got '\(item)'", fix: "e.g. --data order_id=1042")
            }
            b.data.append((String(item[..<eq]), String(item[item.index(after: eq)...])))
        }
        return b
    }
}
