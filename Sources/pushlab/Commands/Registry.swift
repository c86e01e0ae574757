let pushlabVersion = "0.1.0"

/// Every subcommand, in the order `pushlab --help` lists them. Add new commands here.
let allCommands: [any Command.Type] = [
    DemoCommand.self,
    SimulateCommand.self,
    SendAPNsCommand.self,
    SendFCMCommand.self,
    HistoryCommand.self,
    ValidateCommand.self,
    PayloadCommand.self,
    ServeCommand.self,
    OpenCommand.self,
    CollectorCommand.self,
    ReportCommand.self,
    NSECommand.self,
    AppLaunchCommand.self,
    AppStoreCommand.self,
]
