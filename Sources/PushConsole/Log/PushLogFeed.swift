/// Where pushes enter the console's log. The gateway feeds it through `GatewayLogFeed`; the relay
/// (or anything else that sends or receives pushes) calls `append` with what it saw.
public protocol PushLogFeed: Sendable {
    func append(_ push: LoggedPush)
}
