#include "cpushlab_curl.h"

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
