import Foundation

// FCM HTTP v1 rules of the catalog (docs/specs/fcm.md "Message essentials").
extension RuleCatalog {
    public static let fcmMessageMissing = ValidationRule("fcm.message.missing", .error, .fcm,
        "An HTTP v1 request body is {\"message\": {…}} (legacy fields like to/registration_ids are not accepted).",
        fix: "wrap the message: {\"message\": {\"token\": …, \"notification\": …}}")
    public static let fcmValidateOnlyType = ValidationRule("fcm.validate_only.type", .error, .fcm,
        "validate_only must be a boolean.",
        fix: "write \"validate_only\": true or false")
    public static let fcmUnknownField = ValidationRule("fcm.unknown-field", .error, .fcm,
        "FCM rejects fields the v1 API does not define (\"Invalid JSON payload received. Unknown name\").",
        fix: "fix the spelling or move custom values into data")
    public static let fcmFieldType = ValidationRule("fcm.field.type", .error, .fcm,
        "A message field has the wrong JSON type (e.g. an object where a string is expected).",
        fix: "use the type the HTTP v1 reference gives for this field")
    public static let fcmTargetCount = ValidationRule("fcm.target.count", .error, .fcm,
        "A message needs exactly one target: fid, token, topic or condition.",
        fix: "keep exactly one of fid, token, topic, condition")
    public static let fcmTopicFormat = ValidationRule("fcm.topic.format", .error, .fcm,
        "topic must match [a-zA-Z0-9-_.~%]+ (an optional /topics/ prefix is allowed).",
        fix: "use letters, digits and - _ . ~ % only")
    public static let fcmConditionFormat = ValidationRule("fcm.condition.format", .error, .fcm,
        "condition is an expression like \"'news' in topics && 'sports' in topics\" with at most 5 topics.",
        fix: "write conditions as '<topic>' in topics joined by && / ||")
    public static let fcmTokenAPNs = ValidationRule("fcm.token.apns-token", .error, .fcm,
        "message.token is an APNs device token; FCM needs the FCM registration token.",
        fix: "register Messaging.messaging().token from the app, not the raw APNs token")
    public static let fcmTokenShape = ValidationRule("fcm.token.shape", .error, .fcm,
        "message.token does not look like an FCM registration token (<instance id>:<base64url>, ~140–200 chars).",
        fix: "copy the registration token exactly")
    public static let fcmFIDShape = ValidationRule("fcm.fid.shape", .error, .fcm,
        "message.fid is not a Firebase Installation ID: 22 base64url characters starting with c, d, e or f.",
        fix: "copy the FID the app's Firebase Installations SDK returns; a registration token goes in token")
    public static let fcmDataString = ValidationRule("fcm.data.string", .error, .fcm,
        "data values must all be strings (FCM rejects numbers, booleans and objects).",
        fix: "quote the value; JSON-encode objects into a string")
    public static let fcmDataReserved = ValidationRule("fcm.data.reserved", .error, .fcm,
        "data keys from, gcm and anything starting with google are reserved.",
        fix: "rename the key")
    public static let fcmAPNsHeadersString = ValidationRule("fcm.apns.headers.string", .error, .fcm,
        "apns.headers values must be strings: an integer \"apns-priority\": 10 is rejected (TYPE_STRING).",
        fix: "quote the header value, e.g. \"apns-priority\": \"10\"")
    public static let fcmWebpushHeadersString = ValidationRule("fcm.webpush.headers.string", .error, .fcm,
        "webpush.headers values must be strings.",
        fix: "quote the header value")
    public static let fcmAndroidTTL = ValidationRule("fcm.android.ttl.format", .error, .fcm,
        "android.ttl is a duration string \"<seconds>s\" from 0 to 2419200 (28 days), e.g. \"3600s\".",
        fix: "write \"ttl\": \"3600s\"")
    public static let fcmAndroidPriority = ValidationRule("fcm.android.priority.value", .error, .fcm,
        "android.priority must be \"normal\" or \"high\".",
        fix: "use \"high\" or \"normal\"")
    public static let fcmSizeMax = ValidationRule("fcm.size.max", .error, .fcm,
        "Message content must be at most 4096 bytes (2048 for topic messages).",
        fix: "shorten the notification and data")
    public static let fcmNotificationImageHTTPS = ValidationRule("fcm.notification.image.https", .warning, .lint,
        "notification.image should be an https URL (iOS blocks http images).",
        fix: "serve the image over https")
    public static let fcmAPNsPayloadCIO = ValidationRule("fcm.apns.cio-placement", .error, .sdk,
        "Customer.io keys (CIO, CIO-Delivery-*) must be under message.apns.payload to reach iOS; in message or data they never reach the SDK on iOS.",
        fix: "move CIO and the CIO-Delivery-* keys into message.apns.payload")

    static let fcm = [fcmMessageMissing, fcmValidateOnlyType, fcmUnknownField, fcmFieldType, fcmTargetCount, fcmTopicFormat,
                      fcmConditionFormat, fcmTokenAPNs, fcmTokenShape, fcmFIDShape, fcmDataString, fcmDataReserved, fcmAPNsHeadersString,
                      fcmWebpushHeadersString, fcmAndroidTTL, fcmAndroidPriority, fcmSizeMax, fcmNotificationImageHTTPS,
                      fcmAPNsPayloadCIO]
}
