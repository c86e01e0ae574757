import Foundation

extension Gateway {
    /// Empties everything a request can change — devices registered through `/admin/devices`,
    /// the in-memory push records, broadcast channels and issued access tokens — so the gateway
    /// answers the next requests as a new one built with the same configuration and keys and an
    /// empty device registry would. For a process that answers many independent request
    /// sequences in memory (the fuzz targets in Fuzz/ build a gateway once, not once per input);
    /// not for a running server. Only for a configuration whose other state it cannot reach is
    /// absent: in-memory records, no fault plan (its rules count requests), no per-token limit,
    /// provider tokens checked per connection (not per team).
    func resetStores() {
        precondition(configuration.recordsPath == nil && configuration.faultPlan.isEmpty && configuration.perTokenLimit == nil
                     && configuration.providerTokenUpdates == .connection,
                     "Gateway.resetStores() needs in-memory records, no fault plan, no per-token limit and per-connection provider tokens")
        devices.removeAll()
        records.removeAllInMemory()
        channels.removeAll()
        accessTokens.removeAll()
    }
}
