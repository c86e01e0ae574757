#define _GNU_SOURCE
#include "cpushlab_server.h"
#include <openssl/err.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <stdio.h>

// ALPN (RFC 7301): the server picks h2 when the client offers it (RFC 9113 §3.2), else
// http/1.1. A client offering neither gets no ALPN and is served HTTP/1.1.
static int cpl_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                           const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const unsigned char h2[] = "h2";
    static const unsigned char h11[] = "http/1.1";
    const unsigned char *fallback = NULL;
    unsigned char fallback_len = 0;
    for (unsigned int i = 0; i < inlen;) {
        unsigned int len = in[i];
        if (i + 1 + len > inlen) break;
        const unsigned char *proto = &in[i + 1];
        if (len == 2 && memcmp(proto, h2, 2) == 0) {
            *out = proto; *outlen = 2;
            return SSL_TLSEXT_ERR_OK;
        }
        if (len == 8 && memcmp(proto, h11, 8) == 0) { fallback = proto; fallback_len = 8; }
        i += 1 + len;
    }
    if (fallback) { *out = fallback; *outlen = fallback_len; return SSL_TLSEXT_ERR_OK; }
    return SSL_TLSEXT_ERR_NOACK;
}

static void cpl_copy_ssl_error(char *error, size_t error_len, const char *what, const char *file) {
    unsigned long code = ERR_get_error();
    char reason[256] = "unknown error";
    if (code) ERR_error_string_n(code, reason, sizeof reason);
    ERR_clear_error();
    snprintf(error, error_len, "%s %s: %s", what, file ? file : "", reason);
}

SSL_CTX *cpl_server_tls_context(const char *cert_file, const char *key_file, char *error, size_t error_len) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) { cpl_copy_ssl_error(error, error_len, "cannot create TLS context", NULL); return NULL; }
    // RFC 9113 §9.2: TLS 1.2 or later, no compression, no renegotiation.
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_ALL | SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION |
                                 SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
        cpl_copy_ssl_error(error, error_len, "cannot load certificate", cert_file);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1) {
        cpl_copy_ssl_error(error, error_len, "cannot load private key", key_file);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        cpl_copy_ssl_error(error, error_len, "private key does not match certificate", key_file);
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_alpn_select_cb(ctx, cpl_alpn_select, NULL);
    return ctx;
}

int cpl_server_alpn_protocol(const SSL *ssl) {
    const unsigned char *proto = NULL;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl, &proto, &len);
    if (len == 2 && memcmp(proto, "h2", 2) == 0) return 2;
    return len == 0 ? 0 : 1;
}

int cpl_server_set_nodelay(evutil_socket_t fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int cpl_server_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int cpl_server_name_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }

int cpl_thread_tryjoin(pthread_t thread) { return pthread_tryjoin_np(thread, NULL); }

int cpl_thread_timedjoin(pthread_t thread, const struct timespec *deadline) { return pthread_timedjoin_np(thread, NULL, deadline); }

/* Accept any certificate during the handshake; the chain's verdict stays in the SSL object
 * (SSL_get_verify_result) for the application to act on per request. */
static int cpl_accept_and_record(int preverify_ok, X509_STORE_CTX *ctx) {
    (void)preverify_ok; (void)ctx;
    return 1;
}

int cpl_server_request_client_certificates(SSL_CTX *ctx, const char *ca_file, char *error, size_t error_len) {
    if (SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) {
        cpl_copy_ssl_error(error, error_len, "cannot load client CA", ca_file);
        return 0;
    }
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca_file);
    if (names) SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, cpl_accept_and_record);
    return 1;
}

int cpl_server_peer_certificate(SSL *ssl, unsigned char **der, long *verify_result, char *reason, size_t reason_len) {
    X509 *cert = SSL_get1_peer_certificate(ssl);
    if (!cert) return 0;
    long result = SSL_get_verify_result(ssl);
    *verify_result = result;
    if (reason && reason_len) snprintf(reason, reason_len, "%s", X509_verify_cert_error_string(result));
    *der = NULL;
    int length = i2d_X509(cert, der);
    X509_free(cert);
    return length > 0 ? length : 0;
}
