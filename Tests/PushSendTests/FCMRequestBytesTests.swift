import XCTest
import PushCore
import PushHTTP
@testable import PushSend
import TestSupport

/// docs/specs/fcm.md "Send": the bytes of a `messages:send` request, written per message straight
/// into one buffer, and the message name read from FCM's answer without building a document —
/// both must say exactly what the JSON library says.
final class FCMRequestBytesTests: XCTestCase {
    /// The body as the JSON library writes it: the request object (`validate_only` only when true), the target first in the message.
    private func expectedBody(_ message: PreparedFCMMessage, _ target: FCMTarget) -> [UInt8] {
        JSONValue.object(JSONObject((message.validateOnly ? [JSONMember(key: "validate_only", value: .bool(true))] : [])
            + [JSONMember(key: "message", value: .object(message.message(for: target)))])).minifiedBytes()
    }

    func testEveryTargetKindIsSplicedInAsTheJSONLibraryWritesIt() throws {
        let texts = [
            #"{"message":{"notification":{"title":"Hi \"you\"","body":"é\n"},"data":{"k":"v"}}}"#,
            #"{"message":{}}"#,
            #"{"aps":{"alert":"x"}}"#,
        ]
        let targets: [FCMTarget] = [
            .token("dGVzdA:APA91b" + String(repeating: "Xy9_-Q", count: 24)), .fid("fid-1"), .topic("news"),
            .condition(#"'a' in topics && !('b\c' in topics) "quoted" é"#), .token(""),
        ]
        for text in texts {
            for validateOnly in [false, true] {
                let message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(text.utf8)), validateOnly: validateOnly)
                for target in targets {
                    XCTAssertEqual(String(decoding: message.body(for: target), as: UTF8.self),
                                   String(decoding: expectedBody(message, target), as: UTF8.self), "\(text) → \(target)")
                }
            }
        }
    }

    func testTheMessageNameIsReadAsTheJSONParserReadsIt() throws {
        let bodies = [
            #"{"name":"projects/p/messages/0:1"}"#,
            "{\n  \"name\": \"projects/myproject-b5ae1/messages/0:1500415314455276%31bd1c9631bd1c96\"\n}\n",
            #"{"name":"with \"escape\""}"#,
            #"{"name":"é"}"#,
            #"{"name":"a","other":1}"#,
            #"{"other":1,"name":"b"}"#,
            #"{"name":1}"#,
            #"{"name":"unterminated}"#,
            #"{"name":"a"} trailing"#,
            #"["name"]"#,
            "",
        ]
        for text in bodies {
            let bytes = Array(text.utf8)
            let parsed = (try? JSONDocument.parse(bytes))?.root["name"]?.stringValue
            XCTAssertEqual(FCMClient.messageName(in: bytes), parsed, text)
        }
        // The fast path really takes FCM's plain answers (and leaves the rest to the parser).
        XCTAssertEqual(FCMClient.onlyNameMember(Array(bodies[1].utf8)), "projects/myproject-b5ae1/messages/0:1500415314455276%31bd1c9631bd1c96")
        XCTAssertNil(FCMClient.onlyNameMember(Array(bodies[2].utf8)))
        XCTAssertNil(FCMClient.onlyNameMember(Array(bodies[4].utf8)))
    }

    func testTheBearerValueFollowsTheAccessToken() {
        let client = FCMClient(projectID: "p", transport: ScriptedTransport { _, _ in HTTPResponse(status: 200) },
                               credential: FixedCredential("unused"))
        for token in ["ya29.first", "ya29.first", "ya29.second", "ya29.first"] {
            XCTAssertEqual(client.request(body: [], accessToken: token).headers["authorization"], "Bearer " + token)
        }
    }
}
