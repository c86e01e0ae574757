// libcurl: curl_easy_setopt / curl_multi_setopt / curl_easy_getinfo are variadic, so Swift
// needs one typed wrapper per argument kind. The helpers below them keep per-request string
// formatting in C so the client's hot path does not build Swift strings.
#ifndef CPUSHLAB_CURL_H
#define CPUSHLAB_CURL_H

#include <curl/curl.h>
#include <stddef.h>

CURLcode cpl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cpl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cpl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cpl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode cpl_easy_setopt_write_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *));
CURLcode cpl_easy_setopt_header_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *));
CURLcode cpl_easy_setopt_read_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *));
CURLcode cpl_easy_setopt_xferinfo_callback(CURL *handle, int (*cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLcode cpl_easy_setopt_opensocket_callback(CURL *handle, curl_socket_t (*cb)(void *, curlsocktype, struct curl_sockaddr *));
CURLcode cpl_easy_setopt_closesocket_callback(CURL *handle, int (*cb)(void *, curl_socket_t));
CURLMcode cpl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
CURLMcode cpl_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value);
CURLcode cpl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cpl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value);
CURLcode cpl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode cpl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

/// Appends the header line "name: value" to `list`: "name;" when the value is empty (libcurl's
/// syntax for sending a header with no value), "name:" when `value` is NULL (libcurl's syntax
/// for suppressing a header it would add itself). Returns the new list head, or NULL
/// when out of memory (the old list is then left untouched).
struct curl_slist *cpl_slist_append_header(struct curl_slist *list, const char *name, size_t name_len,
                                           const char *value, size_t value_len);
/// Replaces the text of one node of a header list with "name: value" (value not empty), for
/// a list libcurl is not reading now (its handle is not in a multi handle). Returns 0 when out
/// of memory or the value is empty (the node is then unchanged).
int cpl_slist_replace_header(struct curl_slist *node, const char *name, size_t name_len,
                             const char *value, size_t value_len);

/// Corks (`on` 1) or uncorks (0) a TCP socket: while corked the kernel holds back partial
/// segments, and uncorking sends what is queued at once (TCP_CORK, Linux). Returns -1 where
/// the option does not exist (other systems: nothing is held back) or the socket refuses it.
int cpl_tcp_cork(int fd, int on);

/// The next CURLMsg of kind CURLMSG_DONE from curl_multi_info_read: the easy handle and its
/// result. Returns 0 when no more messages are queued. (CURLMsg's `data` is a C union Swift
/// cannot read portably.)
int cpl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

/// 1 when libcurl's redundant RST_STREAM frames are being dropped (see curl_shim.c), 0 when
/// the executable does not export the override and libnghttp2's own function is in use.
int cpl_redundant_reset_filter_active(void);

#endif
