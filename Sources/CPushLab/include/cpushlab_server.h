// nghttp2 + libevent (+ its OpenSSL bufferevents): the HTTP/2 server's C side.
// Only function-like macros and OpenSSL callback plumbing Swift cannot express live here;
// the server itself is Swift (Sources/PushHTTP/Server/).
#ifndef CPUSHLAB_SERVER_H
#define CPUSHLAB_SERVER_H

#include <nghttp2/nghttp2.h>
#include <event2/event.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/buffer.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>
#include <openssl/ssl.h>

/// Creates a TLS server context (TLS 1.2+) with the certificate chain and key loaded, the
/// ALPN selection callback installed (prefers "h2", falls back to "http/1.1") and session
/// tickets off. Returns NULL and fills `error` (NUL-terminated) on failure.
SSL_CTX *cpl_server_tls_context(const char *cert_file, const char *key_file, char *error, size_t error_len);

/// Asks TLS clients for a certificate (optional: a client without one still connects) and
/// verifies a presented one against the CA certificates in `ca_file`. The handshake never
/// fails on a bad certificate: the verdict is read per connection with
/// `cpl_server_peer_certificate`, so the application answers in its own words. 1 on success.
int cpl_server_request_client_certificates(SSL_CTX *ctx, const char *ca_file, char *error, size_t error_len);

/// The DER bytes of the client's certificate (malloc'd: free with cpl_free) and the chain
/// verification result (X509_V_OK = 0) with its text. Returns the DER length, 0 when the
/// client sent no certificate.
int cpl_server_peer_certificate(SSL *ssl, unsigned char **der, long *verify_result, char *reason, size_t reason_len);

/// The protocol ALPN picked for `ssl`, after the handshake. 2: h2; 1: another protocol
/// (http/1.1); 0: no ALPN (decide by the first bytes).
int cpl_server_alpn_protocol(const SSL *ssl);

/// A non-blocking, close-on-exec eventfd used to wake the loop from other threads.
int cpl_server_eventfd(void);

/// Names the calling thread (pthread_setname_np needs _GNU_SOURCE, which Swift does not set).
int cpl_server_name_thread(const char *name);

/// pthread_tryjoin_np / pthread_timedjoin_np (glibc, _GNU_SOURCE): 0 once `thread` is joined.
/// The timed one waits until `deadline` (CLOCK_REALTIME).
int cpl_thread_tryjoin(pthread_t thread);
int cpl_thread_timedjoin(pthread_t thread, const struct timespec *deadline);

/// Disables Nagle on an accepted socket (responses are small and latency-bound).
int cpl_server_set_nodelay(evutil_socket_t fd);

#endif
