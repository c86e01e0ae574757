import CPushLab

/// libcurl's process-wide initialisation, done once before the first handle. (curl_easy_init
/// would do it lazily too, but only thread-safely on builds with the "threadsafe" feature.)
enum CurlLibrary {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    static func initializeOnce() { _ = initialized }
}
