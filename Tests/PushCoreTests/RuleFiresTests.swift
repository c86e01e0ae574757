import XCTest
@testable import PushCore

/// One test per catalog rule, in catalog order: it fires on its sample in payloads/invalid at
/// the expected place and stays silent on every good sample. (A new rule needs a sample, an
/// entry in expected.json and a test here; RuleSamplesTests checks the samples are complete.)
final class RuleFiresTests: XCTestCase {
    func testRule_json_syntax() throws { try RuleSamplesTests.assertRuleFires("json.syntax") }
    func testRule_json_comments() throws { try RuleSamplesTests.assertRuleFires("json.comments") }
    func testRule_json_encoding() throws { try RuleSamplesTests.assertRuleFires("json.encoding") }
    func testRule_json_depth() throws { try RuleSamplesTests.assertRuleFires("json.depth") }
    func testRule_json_duplicate_key() throws { try RuleSamplesTests.assertRuleFires("json.duplicate-key") }
    func testRule_json_root_object() throws { try RuleSamplesTests.assertRuleFires("json.root.object") }
    func testRule_apns_payload_empty() throws { try RuleSamplesTests.assertRuleFires("apns.payload.empty") }
    func testRule_apns_size_max() throws { try RuleSamplesTests.assertRuleFires("apns.size.max") }
    func testRule_apns_push_type_unknown() throws { try RuleSamplesTests.assertRuleFires("apns.push-type.unknown") }
    func testRule_apns_push_type_mismatch() throws { try RuleSamplesTests.assertRuleFires("apns.push-type.mismatch") }
    func testRule_apns_priority_value() throws { try RuleSamplesTests.assertRuleFires("apns.priority.value") }
    func testRule_apns_background_priority() throws { try RuleSamplesTests.assertRuleFires("apns.background.priority") }
    func testRule_apns_background_alert() throws { try RuleSamplesTests.assertRuleFires("apns.background.alert") }
    func testRule_apns_background_content_available() throws { try RuleSamplesTests.assertRuleFires("apns.background.content-available") }
    func testRule_apns_topic_suffix() throws { try RuleSamplesTests.assertRuleFires("apns.topic.suffix") }
    func testRule_apns_collapse_id_size() throws { try RuleSamplesTests.assertRuleFires("apns.collapse-id.size") }
    func testRule_apns_expiration_value() throws { try RuleSamplesTests.assertRuleFires("apns.expiration.value") }
    func testRule_apns_id_format() throws { try RuleSamplesTests.assertRuleFires("apns.id.format") }
    func testRule_apns_token_fcm_token() throws { try RuleSamplesTests.assertRuleFires("apns.token.fcm-token") }
    func testRule_apns_token_shape() throws { try RuleSamplesTests.assertRuleFires("apns.token.shape") }
    func testRule_aps_missing() throws { try RuleSamplesTests.assertRuleFires("aps.missing") }
    func testRule_aps_type() throws { try RuleSamplesTests.assertRuleFires("aps.type") }
    func testRule_aps_unknown_key() throws { try RuleSamplesTests.assertRuleFires("aps.unknown-key") }
    func testRule_aps_alert_type() throws { try RuleSamplesTests.assertRuleFires("aps.alert.type") }
    func testRule_aps_alert_field_type() throws { try RuleSamplesTests.assertRuleFires("aps.alert.field.type") }
    func testRule_aps_alert_unknown_key() throws { try RuleSamplesTests.assertRuleFires("aps.alert.unknown-key") }
    func testRule_aps_alert_empty() throws { try RuleSamplesTests.assertRuleFires("aps.alert.empty") }
    func testRule_aps_badge_type() throws { try RuleSamplesTests.assertRuleFires("aps.badge.type") }
    func testRule_aps_sound_type() throws { try RuleSamplesTests.assertRuleFires("aps.sound.type") }
    func testRule_aps_string_type() throws { try RuleSamplesTests.assertRuleFires("aps.string.type") }
    func testRule_aps_content_available_type() throws { try RuleSamplesTests.assertRuleFires("aps.content-available.type") }
    func testRule_aps_mutable_content_type() throws { try RuleSamplesTests.assertRuleFires("aps.mutable-content.type") }
    func testRule_aps_flag_value() throws { try RuleSamplesTests.assertRuleFires("aps.flag.value") }
    func testRule_aps_number_literal() throws { try RuleSamplesTests.assertRuleFires("aps.number.literal") }
    func testRule_aps_interruption_level_value() throws { try RuleSamplesTests.assertRuleFires("aps.interruption-level.value") }
    func testRule_aps_relevance_score_range() throws { try RuleSamplesTests.assertRuleFires("aps.relevance-score.range") }
    func testRule_aps_date_type() throws { try RuleSamplesTests.assertRuleFires("aps.date.type") }
    func testRule_liveactivity_event_value() throws { try RuleSamplesTests.assertRuleFires("liveactivity.event.value") }
    func testRule_liveactivity_timestamp_required() throws { try RuleSamplesTests.assertRuleFires("liveactivity.timestamp.required") }
    func testRule_liveactivity_content_state_required() throws { try RuleSamplesTests.assertRuleFires("liveactivity.content-state.required") }
    func testRule_liveactivity_start_attributes() throws { try RuleSamplesTests.assertRuleFires("liveactivity.start.attributes") }
    func testRule_liveactivity_push_type() throws { try RuleSamplesTests.assertRuleFires("liveactivity.push-type") }
    func testRule_cio_delivery_pair() throws { try RuleSamplesTests.assertRuleFires("cio.delivery.pair") }
    func testRule_cio_delivery_type() throws { try RuleSamplesTests.assertRuleFires("cio.delivery.type") }
    func testRule_cio_delivery_empty() throws { try RuleSamplesTests.assertRuleFires("cio.delivery.empty") }
    func testRule_cio_misplaced() throws { try RuleSamplesTests.assertRuleFires("cio.misplaced") }
    func testRule_cio_type() throws { try RuleSamplesTests.assertRuleFires("cio.type") }
    func testRule_cio_push_unknown_key() throws { try RuleSamplesTests.assertRuleFires("cio.push.unknown-key") }
    func testRule_cio_image_type() throws { try RuleSamplesTests.assertRuleFires("cio.image.type") }
    func testRule_cio_image_url() throws { try RuleSamplesTests.assertRuleFires("cio.image.url") }
    func testRule_cio_image_https() throws { try RuleSamplesTests.assertRuleFires("cio.image.https") }
    func testRule_cio_image_extension() throws { try RuleSamplesTests.assertRuleFires("cio.image.extension") }
    func testRule_cio_mutable_content_required() throws { try RuleSamplesTests.assertRuleFires("cio.mutable-content.required") }
    func testRule_cio_alert_required() throws { try RuleSamplesTests.assertRuleFires("cio.alert.required") }
    func testRule_cio_link_type() throws { try RuleSamplesTests.assertRuleFires("cio.link.type") }
    func testRule_cio_link_url() throws { try RuleSamplesTests.assertRuleFires("cio.link.url") }
    func testRule_cio_link_scheme_case() throws { try RuleSamplesTests.assertRuleFires("cio.link.scheme-case") }
    func testRule_fcm_message_missing() throws { try RuleSamplesTests.assertRuleFires("fcm.message.missing") }
    func testRule_fcm_validate_only_type() throws { try RuleSamplesTests.assertRuleFires("fcm.validate_only.type") }
    func testRule_fcm_unknown_field() throws { try RuleSamplesTests.assertRuleFires("fcm.unknown-field") }
    func testRule_fcm_field_type() throws { try RuleSamplesTests.assertRuleFires("fcm.field.type") }
    func testRule_fcm_target_count() throws { try RuleSamplesTests.assertRuleFires("fcm.target.count") }
    func testRule_fcm_topic_format() throws { try RuleSamplesTests.assertRuleFires("fcm.topic.format") }
    func testRule_fcm_condition_format() throws { try RuleSamplesTests.assertRuleFires("fcm.condition.format") }
    func testRule_fcm_token_apns_token() throws { try RuleSamplesTests.assertRuleFires("fcm.token.apns-token") }
    func testRule_fcm_token_shape() throws { try RuleSamplesTests.assertRuleFires("fcm.token.shape") }
    func testRule_fcm_data_string() throws { try RuleSamplesTests.assertRuleFires("fcm.data.string") }
    func testRule_fcm_data_reserved() throws { try RuleSamplesTests.assertRuleFires("fcm.data.reserved") }
    func testRule_fcm_apns_headers_string() throws { try RuleSamplesTests.assertRuleFires("fcm.apns.headers.string") }
    func testRule_fcm_webpush_headers_string() throws { try RuleSamplesTests.assertRuleFires("fcm.webpush.headers.string") }
    func testRule_fcm_android_ttl_format() throws { try RuleSamplesTests.assertRuleFires("fcm.android.ttl.format") }
    func testRule_fcm_android_priority_value() throws { try RuleSamplesTests.assertRuleFires("fcm.android.priority.value") }
    func testRule_fcm_size_max() throws { try RuleSamplesTests.assertRuleFires("fcm.size.max") }
    func testRule_fcm_notification_image_https() throws { try RuleSamplesTests.assertRuleFires("fcm.notification.image.https") }
    func testRule_fcm_apns_cio_placement() throws { try RuleSamplesTests.assertRuleFires("fcm.apns.cio-placement") }
    func testRule_simulator_bundle_type() throws { try RuleSamplesTests.assertRuleFires("simulator.bundle.type") }
    func testRule_simulator_bundle_missing() throws { try RuleSamplesTests.assertRuleFires("simulator.bundle.missing") }
}
