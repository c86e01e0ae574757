import CPushLab

/// The multi handle as other threads may use it: only for `curl_multi_wakeup`, which libcurl
/// documents as callable from any thread. The inbox keeps it only while the handle is alive
/// and calls wakeup with its lock held, so a wakeup never races `curl_multi_cleanup`.
struct MultiWakeHandle: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
    func wake() { _ = curl_multi_wakeup(multi) }
}
