import Foundation
import PushCore

/// A flag: present or not.
struct Flag: OptionDeclaration {
    let spec: OptionSpec
}
