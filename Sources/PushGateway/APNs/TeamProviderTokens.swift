import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization

/// Where the gateway counts provider-token changes for 429 TooManyProviderTokenUpdates
/// (docs/specs/apns.md: refresh no more often than every 20 minutes).
public enum ProviderTokenUpdateScope: String, Sendable, CaseIterable {
    /// A new token on one connection sooner than 20 minutes after its last (the default: one
    /// client process, several runs, never trip it).
    case connection
    /// Also per team across every connection: a token other than the team's current one, sooner
    /// than 20 minutes after the team's last change. Several senders that each sign their own
    /// token for one team (relay nodes without a shared token) trip it.
    case team
}

/// The current provider token of each team, across connections (`ProviderTokenUpdateScope.team`).
final class TeamProviderTokens: Sendable {
    private let tokens = Mutex<[String: (token: String, changedAt: Date)]>([:])

    /// True when `token` may be the team's token now: it already is, the team has none, or the
    /// last change is at least `minimumInterval` ago (then it becomes the team's token).
    func admit(team: String, token: String, now: Date, minimumInterval: TimeInterval) -> Bool {
        tokens.withLock { t in
            if let current = t[team] {
                if current.token == token { return true }
                if now.timeIntervalSince(current.changedAt) < minimumInterval { return false }
            }
            t[team] = (token, now)
            return true
        }
    }
}
