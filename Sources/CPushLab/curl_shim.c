#define _GNU_SOURCE  /* RTLD_NEXT */
#include "cpushlab_curl.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

CURLcode cpl_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_write_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, cb); }
CURLcode cpl_easy_setopt_header_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, cb); }
CURLcode cpl_easy_setopt_read_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(handle, CURLOPT_READFUNCTION, cb); }
CURLcode cpl_easy_setopt_xferinfo_callback(CURL *handle, int (*cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, cb); }
CURLcode cpl_easy_setopt_opensocket_callback(CURL *handle, curl_socket_t (*cb)(void *, curlsocktype, struct curl_sockaddr *)) { return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, cb); }
CURLcode cpl_easy_setopt_closesocket_callback(CURL *handle, int (*cb)(void *, curl_socket_t)) { return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, cb); }
CURLMcode cpl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return curl_multi_setopt(handle, option, value); }
CURLMcode cpl_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) { return curl_multi_setopt(handle, option, value); }
CURLcode cpl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode cpl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode cpl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode cpl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) { return curl_easy_getinfo(handle, info, value); }

struct curl_slist *cpl_slist_append_header(struct curl_slist *list, const char *name, size_t name_len,
                                           const char *value, size_t value_len) {
    char stack[512];
    size_t need = name_len + 2 + value_len + 1;
    char *line = need <= sizeof stack ? stack : malloc(need);
    if (!line) return NULL;
    memcpy(line, name, name_len);
    size_t at = name_len;
    if (value == NULL) {
        line[at++] = ':';
    } else if (value_len == 0) {
        line[at++] = ';';
    } else {
        line[at++] = ':';
        line[at++] = ' ';
        memcpy(line + at, value, value_len);
        at += value_len;
    }
    line[at] = '\0';
    struct curl_slist *result = curl_slist_append(list, line);  // copies the line
    if (line != stack) free(line);
    return result;
}

int cpl_slist_replace_header(struct curl_slist *node, const char *name, size_t name_len,
                             const char *value, size_t value_len) {
    if (value_len == 0) return 0;  // "name;" lines are built by cpl_slist_append_header only
    size_t need = name_len + 2 + value_len + 1;
    // A line no longer than the old one (an apns-id is always 36 characters) is written over
    // it: node->data holds at least strlen(node->data) + 1 bytes.
    int in_place = need <= strlen(node->data) + 1;
    char *line = in_place ? node->data : malloc(need);
    if (!line) return 0;
    memcpy(line, name, name_len);
    line[name_len] = ':';
    line[name_len + 1] = ' ';
    memcpy(line + name_len + 2, value, value_len);
    line[name_len + 2 + value_len] = '\0';
    if (!in_place) {
        free(node->data);  // allocated by curl_slist_append's strdup (libcurl's default allocator)
        node->data = line;
    }
    return 1;
}

int cpl_tcp_cork(int fd, int on) {
#ifdef TCP_CORK
    return setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
#else
    (void)fd; (void)on;
    return -1;
#endif
}

int cpl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int queued = 0;
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(multi, &queued)) != NULL) {
        if (msg->msg == CURLMSG_DONE) {
            *easy = msg->easy_handle;
            *result = msg->data.result;
            return 1;
        }
    }
    return 0;
}

/*
 * libcurl 7.88 (Debian 12) submits RST_STREAM(STREAM_CLOSED) when it finishes a transfer whose
 * response had no body, although the stream is already closed at both ends. That is legal
 * (RFC 9113 §5.1: a closed stream ignores RST_STREAM) but nghttp2 servers with the
 * CVE-2023-44487 "rapid reset" defence (nghttp2 >= 1.57, Debian's 1.52.0-1+deb12u1) count
 * every received RST_STREAM and, after a burst of 1000, answer GOAWAY(INTERNAL_ERROR): a
 * client pushing to an APNs-like server (200, empty body) loses its connection every ~1000
 * requests, and a few in-flight requests fail with it. Measured with pushlab's server and
 * nghttpd; the C baseline in benchmarks/c shows the same.
 *
 * This definition takes precedence over libnghttp2's for libcurl (the executable exports it,
 * see Package.swift) and drops only a STREAM_CLOSED reset of a stream nghttp2 itself no longer
 * has open; every other reset goes to the real function unchanged.
 */
typedef int (*cpl_submit_rst_stream_fn)(nghttp2_session *, uint8_t, int32_t, uint32_t);

static cpl_submit_rst_stream_fn cpl_real_submit_rst_stream(void) {
    static cpl_submit_rst_stream_fn real;  /* benign race: every thread stores the same value */
    if (!real) real = (cpl_submit_rst_stream_fn)dlsym(RTLD_NEXT, "nghttp2_submit_rst_stream");
    return real;
}

int nghttp2_submit_rst_stream(nghttp2_session *session, uint8_t flags, int32_t stream_id, uint32_t error_code) {
    if (error_code == NGHTTP2_STREAM_CLOSED && stream_id > 0) {
        nghttp2_stream *stream = nghttp2_session_find_stream(session, stream_id);
        if (!stream || nghttp2_stream_get_state(stream) == NGHTTP2_STREAM_STATE_CLOSED) return 0;
    }
    cpl_submit_rst_stream_fn real = cpl_real_submit_rst_stream();
    return real ? real(session, flags, stream_id, error_code) : NGHTTP2_ERR_INVALID_STATE;
}

int cpl_redundant_reset_filter_active(void) {
    return dlsym(RTLD_DEFAULT, "nghttp2_submit_rst_stream") == (void *)nghttp2_submit_rst_stream;
}
