import CPushLab
import Glibc

/// How other threads rouse a client's sleeping loop: `curl_multi_wakeup` on the libcurl loop's
/// multi handle (libcurl documents it as callable from any thread), or a write to the eventfd
/// the direct HTTP/2 loop (`NGHTTP2Loop`) sleeps on. The inbox keeps it only while the loop is
/// alive and calls `wake` with its lock held, so a wakeup never races the loop's cleanup.
struct MultiWakeHandle: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer?
    private let eventFD: Int32

    init(multi: UnsafeMutableRawPointer) {
        self.multi = multi
        eventFD = -1
    }

    init(eventFD: Int32) {
        multi = nil
        self.eventFD = eventFD
    }

    func wake() {
        if let multi {
            _ = curl_multi_wakeup(multi)
        } else {
            var one: UInt64 = 1
            _ = write(eventFD, &one, 8)
        }
    }
}
