import XCTest
@testable import PushCore

/// The request models: APNs request headers and body, FCM v1 request, `.apns` simulator files.
final class RequestModelTests: XCTestCase {
    func testAPNsRequestHeadersFollowThePushType() {
        let bg = APNsRequest(deviceToken: DeviceTokenTests.apnsToken, pushType: .background, topic: "io.pushlab.demo",
                             payload: ["aps": ["content-available": 1]])
        XCTAssertEqual(bg.path, "/3/device/\(DeviceTokenTests.apnsToken)")
        XCTAssertEqual(bg.headerFields.map(\.name), ["apns-push-type", "apns-topic", "apns-priority"])
        XCTAssertEqual(bg.headerFields.first { $0.name == "apns-priority" }?.value, "5", "background pushes default to 5")
        XCTAssertEqual(bg.body, Array(#"{"aps":{"content-available":1}}"#.utf8))
        XCTAssertTrue(Validator(options: ValidationOptions(apns: bg)).validate(bg.payload).findings.isEmpty)
    }

    func testAPNsRequestContextReadsWireHeadersCaseInsensitively() {
        let ctx = APNsRequest(headers: [("APNS-Push-Type", "voip"), ("apns-topic", "io.x.voip"), ("apns-priority", "10"),
                                               ("apns-priority", "5")], deviceToken: "abc")
        XCTAssertEqual(ctx.pushType, .known(.voip))
        XCTAssertEqual(ctx.topic, "io.x.voip")
        XCTAssertEqual(ctx.priority, .known(.immediate), "the first of duplicate headers")
        XCTAssertEqual(ctx.deviceToken, "abc")
    }

    /// Each header APNs reads is found in any ASCII case (the first byte too, which the name
    /// comparison checks before the rest), and a name of the same length that differs in any one
    /// byte is ignored.
    func testAPNsRequestMatchesEachHeaderNameInAnyCaseAndNothingElse() {
        let names = [APNsHeader.authorization, APNsHeader.id, APNsHeader.expiration, APNsHeader.priority, APNsHeader.pushType,
                     APNsHeader.topic, APNsHeader.collapseID]
        func filed(_ request: APNsRequest) -> [String] {
            var out: [String] = []
            if request.authorization != nil { out.append(APNsHeader.authorization) }
            if request.apnsID != nil { out.append(APNsHeader.id) }
            if request.expiration != nil { out.append(APNsHeader.expiration) }
            if request.priority != nil { out.append(APNsHeader.priority) }
            if request.pushType != nil { out.append(APNsHeader.pushType) }
            if request.topic != nil { out.append(APNsHeader.topic) }
            if request.collapseID != nil { out.append(APNsHeader.collapseID) }
            return out
        }
        for name in names {
            let bytes = Array(name.utf8)
            var spellings = [name, name.uppercased()]
            for k in bytes.indices where bytes[k] >= 0x61 && bytes[k] <= 0x7A {
                var upper = bytes
                upper[k] -= 0x20
                spellings.append(String(decoding: upper, as: UTF8.self))
            }
            for spelling in spellings {
                XCTAssertEqual(filed(APNsRequest(headers: [(spelling, "1")])), [name], spelling)
            }
            // Same length, one byte off (at the start, inside, at the end): not this header, nor any other.
            for k in bytes.indices {
                for other: UInt8 in [UInt8(ascii: ":"), UInt8(ascii: "x"), UInt8(ascii: "_"), bytes[k] ^ 0x01] {
                    var near = bytes
                    near[k] = other
                    let spelled = String(decoding: near, as: UTF8.self)
                    if names.contains(spelled.lowercased()) { continue }
                    XCTAssertEqual(filed(APNsRequest(headers: [(spelled, "1")])), [], spelled)
                }
            }
        }
        // The pseudo-headers and common fields whose lengths collide with APNs' names.
        for other in [":method", ":scheme", ":authority", "user-agent", "content-length", "accept-encoding", "content-encoding"] {
            XCTAssertEqual(filed(APNsRequest(headers: [(other, "1")])), [], other)
        }
    }

    /// Typed fields keep a value APNs refuses as it came: the rules name it, the headers resend it.
    func testAPNsRequestKeepsUnknownHeaderValuesAsTheyCame() {
        let id = "0b7a3c2e-5f1d-4c8b-9a6e-2d4f8b1c3e5a"
        let ctx = APNsRequest(headers: [("apns-push-type", "banner"), ("apns-priority", "05"), ("apns-id", "not-a-uuid")])
        XCTAssertEqual(ctx.pushType, .unrecognized("banner"))
        XCTAssertEqual(ctx.priority, .unrecognized("05"))
        XCTAssertEqual(ctx.apnsID, .unrecognized("not-a-uuid"))
        XCTAssertNil(ctx.knownPushType)
        XCTAssertEqual(ctx.effectivePushType, .alert)
        XCTAssertEqual(ctx.headerFields.map(\.value), ["banner", "05", "not-a-uuid"])
        XCTAssertEqual(APNsRequest(apnsID: id).apnsID?.known?.header, id)
        XCTAssertEqual(APNsRequest(apnsID: id.uppercased()).apnsID?.known?.header, id.uppercased(), "either case, echoed as given")
    }

    func testFCMRequestRoundTripsThroughJSON() throws {
        let text = """
        {"validate_only":true,"message":{"topic":"news","notification":{"title":"T","body":"B","image":"https://x.test/a.png"},
         "data":{"b":"2","a":"1"},"apns":{"headers":{"apns-priority":"10"},"payload":{"aps":{"mutable-content":1}},
         "fcm_options":{"image":"https://x.test/a.png"}},"android":{"ttl":"60s"},"fcm_options":{"analytics_label":"l"}}}
        """
        let doc = try JSONParser().parse(text)
        let request = try XCTUnwrap(FCMSendRequest(json: doc.root))
        XCTAssertEqual(request.validateOnly, true)
        XCTAssertEqual(request.message.target, .topic("news"))
        XCTAssertEqual(request.message.data.map(\.key), ["b", "a"], "data keeps its order")
        XCTAssertEqual(request.message.apnsHeaders.first?.value, "10")
        XCTAssertEqual(request.message.apnsImage, "https://x.test/a.png")
        XCTAssertEqual(request.message.analyticsLabel, "l")
        XCTAssertEqual(request.json, doc.root)
    }

    func testFCMMessageWithoutATargetIsNotAMessage() {
        XCTAssertNil(FCMMessage(json: ["notification": ["title": "x"]]))
        XCTAssertNil(FCMSendRequest(json: ["to": "x"]))
    }

    func testSimulatorFileSeparatesTheTargetBundle() throws {
        let doc = try JSONParser().parse(#"{"aps":{"alert":"hi"},"Simulator Target Bundle":"io.pushlab.demo","x":"y"}"#)
        let file = try XCTUnwrap(SimulatorFile(root: doc.root))
        XCTAssertEqual(file.targetBundle, "io.pushlab.demo")
        XCTAssertEqual(file.payload.objectValue?.keys, ["aps", "x"])
        XCTAssertEqual(file.json.objectValue?.keys, ["Simulator Target Bundle", "aps", "x"])
    }

    func testCIOPushWritesItsKeys() {
        let push = CIOPush(deliveryID: "d", deliveryToken: "t", image: "https://x.test/a.png", link: "myapp://a")
        var top = JSONObject(["aps": ["alert": "hi", "mutable-content": 1]])
        top.members += push.payloadMembers()
        XCTAssertEqual(CIOPush(payload: .object(top)), push)
    }
}
