import Foundation

/// An option that was removed: old scripts that pass it get an error saying why and what to do.
struct RemovedOption: OptionDeclaration {
    let spec: OptionSpec
}
