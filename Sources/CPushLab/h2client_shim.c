#define _GNU_SOURCE
#include "cpushlab_h2client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void cpl_h2c_ssl_error(char *error, size_t error_len, const char *what) {
    unsigned long code = ERR_get_error();
    char reason[256] = "";
    if (code) ERR_error_string_n(code, reason, sizeof reason);
    ERR_clear_error();
    if (reason[0]) snprintf(error, error_len, "%s: %s", what, reason);
    else snprintf(error, error_len, "%s", what);
}

SSL_CTX *cpl_h2c_tls_context(const char *ca_file, int verify, char *error, size_t error_len) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) { cpl_h2c_ssl_error(error, error_len, "cannot create a TLS context"); return NULL; }
    // RFC 9113 §9.2: TLS 1.2 or later, no compression, no renegotiation.
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_ALL | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    static const unsigned char alpn[] = {2, 'h', '2'};
    SSL_CTX_set_alpn_protos(ctx, alpn, sizeof alpn);
    if (verify) {
        int loaded = ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL) : SSL_CTX_set_default_verify_paths(ctx);
        if (loaded != 1) {
            cpl_h2c_ssl_error(error, error_len, ca_file ? "cannot load the CA file" : "cannot load the system CA store");
            SSL_CTX_free(ctx);
            return NULL;
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    return ctx;
}

int cpl_h2c_connect(const char *host, int port, char *error, size_t error_len) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    int status = getaddrinfo(host, service, &hints, &found);
    if (status != 0) {
        snprintf(error, error_len, "could not resolve host %s (%s)", host, gai_strerror(status));
        return -1;
    }
    int last_errno = 0;
    for (struct addrinfo *at = found; at; at = at->ai_next) {
        int fd = socket(at->ai_family, at->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, at->ai_protocol);
        if (fd < 0) { last_errno = errno; continue; }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, at->ai_addr, at->ai_addrlen) == 0 || errno == EINPROGRESS) {
            freeaddrinfo(found);
            return fd;
        }
        last_errno = errno;
        close(fd);
    }
    freeaddrinfo(found);
    snprintf(error, error_len, "Failed to connect to %s port %d: %s", host, port, strerror(last_errno));
    return -1;
}

int cpl_h2c_connect_result(int fd, char *error, size_t error_len) {
    int value = 0;
    socklen_t length = sizeof value;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) != 0) value = errno;
    if (value) snprintf(error, error_len, "%s", strerror(value));
    return value;
}

SSL *cpl_h2c_tls_new(SSL_CTX *ctx, int fd, const char *host) {
    SSL *ssl = SSL_new(ctx);
    if (!ssl) return NULL;
    SSL_set_fd(ssl, fd);
    SSL_set_connect_state(ssl);
    unsigned char address[16];
    int literal = inet_pton(AF_INET, host, address) == 1 || inet_pton(AF_INET6, host, address) == 1;
    if (!literal) SSL_set_tlsext_host_name(ssl, host);  // RFC 6066 §3: no IP literals in SNI
    if (SSL_CTX_get_verify_mode(ctx) & SSL_VERIFY_PEER) {
        if (literal) X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
        else SSL_set1_host(ssl, host);
    }
    return ssl;
}

int cpl_h2c_tls_handshake(SSL *ssl, long *verify_result, char *error, size_t error_len) {
    ERR_clear_error();
    int result = SSL_do_handshake(ssl);
    if (result == 1) return 1;
    int reason = SSL_get_error(ssl, result);
    if (reason == SSL_ERROR_WANT_READ) return 0;
    if (reason == SSL_ERROR_WANT_WRITE) return 2;
    long verdict = SSL_get_verify_result(ssl);
    *verify_result = verdict;
    if (verdict != X509_V_OK) {
        snprintf(error, error_len, "SSL certificate problem: %s", X509_verify_cert_error_string(verdict));
        ERR_clear_error();
    } else if (reason == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        snprintf(error, error_len, "the connection closed during the TLS handshake%s%s",
                 errno ? ": " : "", errno ? strerror(errno) : "");
    } else {
        cpl_h2c_ssl_error(error, error_len, "TLS handshake failed");
    }
    return -1;
}

int cpl_h2c_alpn_is_h2(const SSL *ssl) {
    const unsigned char *proto = NULL;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl, &proto, &len);
    return len == 2 && memcmp(proto, "h2", 2) == 0;
}

ssize_t cpl_h2c_read(SSL *ssl, int fd, void *buffer, size_t length) {
    if (!ssl) {
        ssize_t got = recv(fd, buffer, length, 0);
        if (got >= 0) return got;
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : -2;
    }
    ERR_clear_error();
    int got = SSL_read(ssl, buffer, (int)(length > 0x7fffffff ? 0x7fffffff : length));
    if (got > 0) return got;
    switch (SSL_get_error(ssl, got)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    default: ERR_clear_error(); return -2;
    }
}

ssize_t cpl_h2c_write(SSL *ssl, int fd, const void *buffer, size_t length) {
    if (!ssl) {
        ssize_t sent = send(fd, buffer, length, MSG_NOSIGNAL);
        if (sent >= 0) return sent;
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : -2;
    }
    ERR_clear_error();
    int sent = SSL_write(ssl, buffer, (int)(length > 0x7fffffff ? 0x7fffffff : length));
    if (sent > 0) return sent;
    switch (SSL_get_error(ssl, sent)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: return -1;
    default: ERR_clear_error(); return -2;
    }
}

int cpl_h2c_epoll_ctl(int epfd, int op, int fd, uint32_t events, void *ptr) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.ptr = ptr;
    return epoll_ctl(epfd, op, fd, &event);
}

int cpl_h2c_epoll_wait(int epfd, void **ptrs, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[64];
    if (max > 64) max = 64;
    int count = epoll_wait(epfd, ready, max, timeout_ms);
    if (count < 0) return 0;
    for (int i = 0; i < count; i++) {
        ptrs[i] = ready[i].data.ptr;
        events[i] = ready[i].events;
    }
    return count;
}

uint64_t cpl_h2c_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
