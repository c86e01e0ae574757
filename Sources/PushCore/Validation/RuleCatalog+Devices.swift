import Foundation

// Live Activity, Customer.io and simulator-file rules of the catalog (order: see RuleCatalog).
extension RuleCatalog {
    // MARK: Live Activity (apns-push-type: liveactivity)

    public static let liveActivityEvent = ValidationRule("liveactivity.event.value", .error, .ios,
        "A Live Activity push needs aps.event: start, update or end.",
        fix: "add \"event\": \"update\" (or start / end)")
    public static let liveActivityTimestamp = ValidationRule("liveactivity.timestamp.required", .error, .ios,
        "A Live Activity push needs aps.timestamp (UNIX seconds); iOS uses it to drop stale updates.",
        fix: "add \"timestamp\": <now in seconds>")
    public static let liveActivityContentState = ValidationRule("liveactivity.content-state.required", .error, .ios,
        "start and update events need an aps.content-state object matching the activity's ContentState.",
        fix: "add \"content-state\": {…}")
    public static let liveActivityStartAttributes = ValidationRule("liveactivity.start.attributes", .error, .ios,
        "A start event needs attributes-type (string) and attributes (object).",
        fix: "add \"attributes-type\": \"<ActivityAttributes type>\" and \"attributes\": {…}")
    public static let liveActivityPushType = ValidationRule("liveactivity.push-type", .error, .ios,
        "Live Activity keys (event, content-state) only work with apns-push-type liveactivity.",
        fix: "send with apns-push-type: liveactivity and topic <bundle id>.push-type.liveactivity")

    static let liveActivity = [liveActivityEvent, liveActivityTimestamp, liveActivityContentState,
                               liveActivityStartAttributes, liveActivityPushType] + liveActivityMore

    // MARK: Customer.io (docs/specs/device-side.md §1–2)

    public static let cioDeliveryPair = ValidationRule("cio.delivery.pair", .error, .sdk,
        "CIO-Delivery-ID and CIO-Delivery-Token go together; with only one the SDK does not treat the push as Customer.io's (no metrics, no image, no link).",
        fix: "send both keys at the top level, or neither")
    public static let cioDeliveryType = ValidationRule("cio.delivery.type", .error, .sdk,
        "CIO-Delivery-ID and CIO-Delivery-Token must be strings.",
        fix: "quote the values as strings")
    public static let cioDeliveryEmpty = ValidationRule("cio.delivery.empty", .warning, .sdk,
        "An empty delivery id or token still makes a Customer.io push, but its metrics cannot be attributed.",
        fix: "fill in the delivery id and token Customer.io issued")
    public static let cioMisplaced = ValidationRule("cio.misplaced", .error, .sdk,
        "Customer.io keys are in the wrong place (inside aps, or delivery keys inside CIO); the SDK reads CIO.push and the delivery keys at the top level.",
        fix: "move \"CIO\" and the CIO-Delivery-* keys to the top level beside aps")
    public static let cioType = ValidationRule("cio.type", .error, .sdk,
        "CIO and CIO.push must be objects.",
        fix: "use \"CIO\": {\"push\": {\"image\": …, \"link\": …}}")
    public static let cioPushUnknownKey = ValidationRule("cio.push.unknown-key", .warning, .sdk,
        "A key in CIO.push other than image and link is ignored by the SDK.",
        fix: "use \"image\" for the picture URL and \"link\" for the deep link")
    public static let cioImageType = ValidationRule("cio.image.type", .error, .sdk,
        "CIO.push.image must be a string URL.",
        fix: "write the image URL as a string")
    public static let cioImageURL = ValidationRule("cio.image.url", .error, .ios,
        "CIO.push.image must be an absolute URL with a host.",
        fix: "use a full URL like https://cdn.example.com/image.jpg")
    public static let cioImageHTTPS = ValidationRule("cio.image.https", .error, .ios,
        "The image must be https: App Transport Security blocks http, and the push shows without its image.",
        fix: "serve the image over https")
    public static let cioImageExtension = ValidationRule("cio.image.extension", .error, .ios,
        "An image URL ending in another extension (.webp, .bmp, …) is not shown: iOS attachments must be JPEG, PNG or GIF with a matching extension.",
        fix: "convert the image to JPEG, PNG or GIF and use a URL ending in its extension")
    public static let cioImageNoExtension = ValidationRule("cio.image.no-extension", .warning, .ios,
        "An image URL without a file extension shows only if the download names its type: iOS takes the attachment's file name from Content-Disposition, else the URL, else appends the extension of the Content-Type (docs/specs/device-side.md §2).",
        fix: "serve it with Content-Type image/jpeg, image/png or image/gif (or a Content-Disposition file name); `pushlab nse` shows which name iOS would use")
    public static let cioMutableContent = ValidationRule("cio.mutable-content.required", .error, .ios,
        "A Customer.io push needs aps.mutable-content 1: without it the NSE never runs, so no image and no delivered metric.",
        fix: "add \"mutable-content\": 1 to aps")
    public static let cioAlertRequired = ValidationRule("cio.alert.required", .error, .ios,
        "The NSE only runs for a push that shows an alert; a rich push without title or body gets no image and no delivered metric.",
        fix: "add aps.alert with a title or body")
    public static let cioLinkType = ValidationRule("cio.link.type", .error, .sdk,
        "CIO.push.link must be a string URL.",
        fix: "write the link as a string")
    public static let cioLinkURL = ValidationRule("cio.link.url", .error, .sdk,
        "CIO.push.link must be a valid URL with a scheme (https://… or myapp://…); an unparsable link opens nothing.",
        fix: "use a full URL; percent-encode spaces and special characters")
    public static let cioLinkSchemeCase = ValidationRule("cio.link.scheme-case", .warning, .sdk,
        "The SDK compares the scheme exactly: HTTPS:// or Http:// skips the universal-link tier and opens the browser.",
        fix: "write the scheme in lowercase (https://)")

    static let cio = [cioDeliveryPair, cioDeliveryType, cioDeliveryEmpty, cioMisplaced, cioType, cioPushUnknownKey,
                      cioImageType, cioImageURL, cioImageHTTPS, cioImageExtension, cioImageNoExtension, cioMutableContent, cioAlertRequired,
                      cioLinkType, cioLinkURL, cioLinkSchemeCase] + cioLive

    // MARK: .apns simulator files

    public static let simulatorBundleType = ValidationRule("simulator.bundle.type", .error, .lint,
        "\"Simulator Target Bundle\" must be a bundle id string.",
        fix: "write \"Simulator Target Bundle\": \"com.example.app\"")
    public static let simulatorBundleMissing = ValidationRule("simulator.bundle.missing", .info, .lint,
        "A .apns file without \"Simulator Target Bundle\" needs the bundle id on the simctl command line.",
        fix: "add \"Simulator Target Bundle\": \"<bundle id>\" or pass it to xcrun simctl push")

    static let simulator = [simulatorBundleType, simulatorBundleMissing]
}
