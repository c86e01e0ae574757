import Foundation
import PushCore

/// A value option: the command reads `Value` (an optional when the option has no default, an
/// array when it is repeatable) with `try args[option]`.
struct TypedOption<Value: Sendable>: OptionDeclaration {
    let spec: OptionSpec
    let read: @Sendable (ParsedArguments) throws -> Value
}
