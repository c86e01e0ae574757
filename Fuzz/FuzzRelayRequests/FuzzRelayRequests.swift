import PushCore
@testable import PushRelay

/// libFuzzer target: the relay's request and config parsers (docs/relay.md). First byte:
/// 0 `POST /v1/apps/{app}/pushes` (`NativePushRequest.parse`), 1 gorush's `POST /api/push`
/// (`GorushRequest.parse`), 2 `relay.json` (`RelayConfig.parse`, files not checked); the rest
/// is the body. Built only by scripts/fuzz (Fuzz/README.md).
/// Checks: a request parses, or is refused with a 4xx, a code and a fix; a parsed native push
/// has 1…maxTargets targets, a parsed gorush request
/// 1…maxNotifications notifications each with targets; a config parses to at least one app, or
/// its error names the file and a JSON pointer ("" or starting with "/").

/// One app and the limits, parsed once per process (the keys are not read: checkFiles false).
private let fixture: (app: RelayApp, limits: RelayConfig.Limits) = {
    let json = #"""
        {"apps": {"demo": {"target": "emulator",
          "apns": {"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1", "bundle_id": "io.pushlab.demo"},
          "fcm": {"service_account": "certs/fcm-service-account.json"}}},
         "limits": {"max_targets": 50, "max_notifications": 10}}
        """#
    do {
        let config = try RelayConfig.parse(Array(json.utf8), source: "fuzz-relay.json", baseDirectory: ".", checkFiles: false)
        guard let app = config.apps.first else { fatalError("the fixture config has no app") }
        return (app, config.limits)
    } catch {
        fatalError("the fixture config does not parse: \(error)")
    }
}()

private func checkRefusal(_ error: APIError, _ what: String) {
    guard (400..<500).contains(error.status), !error.code.isEmpty, !error.fix.isEmpty else {
        fatalError("\(what) refused with \(error.status) \(error.code) fix '\(error.fix)'")
    }
    if let field = error.field, field.isEmpty { fatalError("\(what) refusal names an empty field") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRelayRequests(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let (app, limits) = fixture
    switch data[0] % 3 {
    case 0:
        do {
            let request = try NativePushRequest.parse(body, app: app, limits: limits)
            guard (1...limits.maxTargets).contains(request.targets.count) else {
                fatalError("a native push with \(request.targets.count) targets was accepted (limit \(limits.maxTargets))")
            }
        } catch {
            checkRefusal(error, "native push")
        }
    case 1:
        do {
            let request = try GorushRequest.parse(body, app: app, limits: limits)
            guard (1...limits.maxNotifications).contains(request.notifications.count) else {
                fatalError("a gorush request with \(request.notifications.count) notifications was accepted")
            }
            for notification in request.notifications where notification.targets.isEmpty {
                fatalError("a gorush notification without targets was accepted")
            }
        } catch {
            checkRefusal(error, "gorush push")
        }
    default:
        do {
            let config = try RelayConfig.parse(body, source: "fuzz.json", baseDirectory: "/nonexistent", checkFiles: false)
            if config.apps.isEmpty { fatalError("a relay config without apps was accepted") }
        } catch {
            guard error.file == "fuzz.json", error.pointer.isEmpty || error.pointer.hasPrefix("/"), !error.fix.isEmpty else {
                fatalError("config error without file, pointer or fix: \(error)")
            }
        }
    }
    return 0
}
