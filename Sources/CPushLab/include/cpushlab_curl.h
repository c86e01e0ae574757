// libcurl: curl_easy_setopt / curl_multi_setopt / curl_easy_getinfo are variadic, so Swift
// needs one typed wrapper per argument kind.
#ifndef CPUSHLAB_CURL_H
#define CPUSHLAB_CURL_H

#include <curl/curl.h>

CURLcode cpl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode cpl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode cpl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode cpl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode cpl_easy_setopt_write_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *));
CURLcode cpl_easy_setopt_header_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *));
CURLcode cpl_easy_setopt_read_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *));
CURLcode cpl_easy_setopt_xferinfo_callback(CURL *handle, int (*cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
CURLMcode cpl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
CURLcode cpl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode cpl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value);
CURLcode cpl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode cpl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

#endif
