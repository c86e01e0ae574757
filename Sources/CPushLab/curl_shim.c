#include "cpushlab_curl.h"

CURLcode cpl_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode cpl_easy_setopt_write_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, cb); }
CURLcode cpl_easy_setopt_header_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, cb); }
CURLcode cpl_easy_setopt_read_callback(CURL *handle, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(handle, CURLOPT_READFUNCTION, cb); }
CURLcode cpl_easy_setopt_xferinfo_callback(CURL *handle, int (*cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, cb); }
CURLMcode cpl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return curl_multi_setopt(handle, option, value); }
CURLcode cpl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode cpl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode cpl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode cpl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) { return curl_easy_getinfo(handle, info, value); }
