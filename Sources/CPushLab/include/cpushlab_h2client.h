// The socket, TLS and epoll side of pushlab's direct HTTP/2 client (Sources/PushHTTP/Client/
// NGHTTP2/). Kept in C: getaddrinfo, SO_ERROR, SSL_set_tlsext_host_name (a macro), the packed
// epoll_event and OpenSSL's error queue are awkward from Swift. The HTTP/2 logic is Swift.
#ifndef CPUSHLAB_H2CLIENT_H
#define CPUSHLAB_H2CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/types.h>
#include <openssl/ssl.h>

/// A TLS client context: TLS 1.2+, ALPN offering only "h2", and with `verify` the peer's chain
/// checked against `ca_file` (NULL: the system store). NULL with `error` filled when the CA
/// file cannot be read or the context cannot be made.
SSL_CTX *cpl_h2c_tls_context(const char *ca_file, int verify, char *error, size_t error_len);

/// Resolves `host` and starts a non-blocking TCP connect to `port` (TCP_NODELAY, close-on-exec).
/// Returns the socket (connecting: wait until writable, then ask `cpl_h2c_connect_result`), or
/// -1 with `error` filled.
int cpl_h2c_connect(const char *host, int port, char *error, size_t error_len);

/// 0 once the connect succeeded, else the errno it failed with (text in `error`).
int cpl_h2c_connect_result(int fd, char *error, size_t error_len);

/// A TLS connection over `fd` for `host`: SNI (names only, not IP literals) and, when the
/// context verifies, the host name or IP address checked against the certificate.
SSL *cpl_h2c_tls_new(SSL_CTX *ctx, int fd, const char *host);

/// Drives the handshake. 1: done; 0: wants to read; 2: wants to write; -1: failed, with
/// `*verify_result` the chain verdict (X509_V_OK = 0 when verification was not the problem)
/// and `error` the reason.
int cpl_h2c_tls_handshake(SSL *ssl, long *verify_result, char *error, size_t error_len);

/// 1 when the server picked "h2" by ALPN.
int cpl_h2c_alpn_is_h2(const SSL *ssl);

/// Reads into `buffer` from TLS (`ssl`) or the plain socket (`ssl` NULL). Returns the count,
/// 0 at end of stream, -1 when nothing is ready (would block), -2 on an error.
ssize_t cpl_h2c_read(SSL *ssl, int fd, void *buffer, size_t length);

/// Writes as much of `buffer` as the socket takes now; same return codes as `cpl_h2c_read`
/// (0 never). A TLS write that returned -1 must be retried with the same bytes.
ssize_t cpl_h2c_write(SSL *ssl, int fd, const void *buffer, size_t length);

/// epoll_ctl with `ptr` as the event's data (EPOLL_CTL_ADD / MOD / DEL as `op`).
int cpl_h2c_epoll_ctl(int epfd, int op, int fd, uint32_t events, void *ptr);

/// epoll_wait into parallel arrays; returns the count (0 on timeout or EINTR).
int cpl_h2c_epoll_wait(int epfd, void **ptrs, uint32_t *events, int max, int timeout_ms);

/// CLOCK_MONOTONIC in nanoseconds.
uint64_t cpl_h2c_now_ns(void);

#endif
