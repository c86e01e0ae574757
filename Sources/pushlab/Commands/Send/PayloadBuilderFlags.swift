import PushCore

/// The payload-builder flags `pushlab payload` and `pushlab send apns|fcm` have in common:
/// declared once, so both commands' `--help` comes from the same lines, and read once into
/// PushCore's `PayloadBuilder`, so a flag is checked the same way by every command. What only
/// one command has (`payload --push-type`, `send --profile` …) stays with that command.
enum PayloadBuilderFlags {
    static let title = Option.string("--title", name: "TEXT", help: "Alert title.")
    static let subtitle = Option.string("--subtitle", name: "TEXT", help: "Alert subtitle.")
    static let body = Option.string("--body", name: "TEXT", help: "Alert body.")
    static let image = Option.string("--image", name: "URL", help: "Rich-push image (https, .jpg/.jpeg/.png/.gif) → CIO.push.image; sets mutable-content.")
    static let link = Option.string("--link", name: "URL", help: "Deep link or universal link opened on tap → CIO.push.link.")
    static let sound = Option.string("--sound", name: "NAME", help: "Sound name, e.g. default.")
    static let badge = Option.int("--badge", help: "Badge number (0 clears it).", in: 0...Int(Int32.max))
    static let category = Option.string("--category", name: "ID", help: "Notification category (actions).")
    static let threadID = Option.string("--thread-id", name: "ID", help: "Thread id for grouping.")
    static let data = Option.strings("--data", name: "KEY=VALUE", help: "Custom key (top level for APNs, message.data for FCM).")
    static let deliveryID = Option.string("--delivery-id", name: "ID", help: "Customer.io CIO-Delivery-ID (with --delivery-token).")
    static let deliveryToken = Option.string("--delivery-token", name: "TOKEN", help: "Customer.io CIO-Delivery-Token (with --delivery-id).")
    static let background = Option.flag("--background", help: "A silent background push (content-available, no alert).")

    static let options: [any OptionDeclaration] = [title, subtitle, body, image, link, sound, badge, category, threadID, data,
                                                   deliveryID, deliveryToken, background]

    /// A builder holding these flags' values; the caller adds its own flags and builds.
    static func builder(_ args: ParsedArguments) throws -> PayloadBuilder {
        var b = PayloadBuilder()
        b.title = try args[title]
        b.subtitle = try args[subtitle]
        b.body = try args[body]
        b.image = try args[image]
        b.link = try args[link]
        b.sound = try args[sound]
        b.badge = try args[badge]
        b.category = try args[category]
        b.threadID = try args[threadID]
        b.deliveryID = try args[deliveryID]
        b.deliveryToken = try args[deliveryToken]
        if args[background] { b.pushType = .background }
        for item in try args[data] {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                throw UsageError("--data takes KEY=VALUE, got '\(item)'", fix: "e.g. --data order_id=1042")
            }
            b.data.append((String(item[..<eq]), String(item[item.index(after: eq)...])))
        }
        return b
    }
}
