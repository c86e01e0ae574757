/// Where a worker takes one send from an app's budget, waiting until there is one.
protocol SendBudget: Sendable {
    func take() async
}
