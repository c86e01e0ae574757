import Foundation

/// Reads a key file, mapping I/O failures to `KeyLoadError.unreadable`.
func readKeyFile(_ path: String) throws(KeyLoadError) -> [UInt8] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw .unreadable(source: path, detail: "no such file")
    }
    if isDirectory.boolValue { throw .unreadable(source: path, detail: "it is a directory") }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw .unreadable(source: path, detail: "permission denied or I/O error")
    }
    return [UInt8](data)
}
