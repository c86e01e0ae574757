/*
 * curl_multi_bench: the ceiling of libcurl's multi interface for pushlab's client benchmark.
 * One multi handle, one connection (MAX_HOST_CONNECTIONS 1, PIPEWAIT), `window` transfers in
 * flight, easy handles reused, each response's headers and body copied into a per-handle
 * buffer (the least a real client does). Same shape as pushlab's HTTPClient loop:
 * curl_multi_perform, curl_multi_info_read, curl_multi_poll.
 *
 *   curl_multi_bench URL TOTAL WINDOW MODE(h2|h2c|http1) CAFILE|- BODYBYTES
 *
 * libcurl 7.88 cannot reuse an h2c prior-knowledge connection (curl/curl#10634), so in h2c
 * mode the first request runs alone with prior knowledge and the rest ask for HTTP/2, which
 * reuses it — the same workaround pushlab's client applies.
 */
#include <curl/curl.h>
#include "bench_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct slot {
    CURL *easy;
    char *buf;
    size_t len, cap;
    size_t header_bytes;
};

static size_t on_body(char *p, size_t s, size_t n, void *u) {
    struct slot *sl = u;
    buffer_append(&sl->buf, &sl->len, &sl->cap, p, s * n);
    return s * n;
}

static size_t on_header(char *p, size_t s, size_t n, void *u) {
    (void)p;
    ((struct slot *)u)->header_bytes += s * n;
    return s * n;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s URL TOTAL WINDOW h2|h2c|http1 CAFILE|- BODYBYTES\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    long total = atol(argv[2]), window = atol(argv[3]);
    const char *mode = argv[4], *cafile = argv[5];
    size_t body_len = (size_t)atol(argv[6]);
    char *body = malloc(body_len + 1);
    memset(body, 'x', body_len);

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, window);

    long version = !strcmp(mode, "h2c") ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE
                 : !strcmp(mode, "http1") ? CURL_HTTP_VERSION_1_1 : CURL_HTTP_VERSION_2TLS;
    struct curl_slist *headers = NULL;
    headers = curl_slist_append(headers, "content-type: application/octet-stream");
    headers = curl_slist_append(headers, "Expect:");

    struct slot *slots = calloc((size_t)window, sizeof *slots);
    struct slot **idle = calloc((size_t)window, sizeof *idle);
    long nidle = 0;
    for (long i = 0; i < window; i++) {
        struct slot *sl = &slots[i];
        sl->easy = curl_easy_init();
        curl_easy_setopt(sl->easy, CURLOPT_URL, url);
        curl_easy_setopt(sl->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(sl->easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(sl->easy, CURLOPT_HTTP_VERSION, version);
        if (strcmp(cafile, "-")) curl_easy_setopt(sl->easy, CURLOPT_CAINFO, cafile);
        curl_easy_setopt(sl->easy, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(sl->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
        curl_easy_setopt(sl->easy, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(sl->easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(sl->easy, CURLOPT_WRITEDATA, sl);
        curl_easy_setopt(sl->easy, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(sl->easy, CURLOPT_HEADERDATA, sl);
        curl_easy_setopt(sl->easy, CURLOPT_PRIVATE, sl);
        curl_easy_setopt(sl->easy, CURLOPT_TIMEOUT_MS, 60000L);
        idle[nidle++] = sl;
    }

    long started = 0, done = 0;
    struct tally tally = {0, 0, 0, 0};
    int h2c_pilot = !strcmp(mode, "h2c");
    double t0 = now();
    while (done < total) {
        long limit = h2c_pilot && done == 0 ? 1 : total;
        while (nidle > 0 && started < total && started < limit) {
            struct slot *sl = idle[--nidle];
            sl->len = 0;
            sl->header_bytes = 0;
            if (h2c_pilot && started == 1) {
                for (long i = 0; i < window; i++) curl_easy_setopt(slots[i].easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_0);
            }
            curl_multi_add_handle(multi, sl->easy);
            started++;
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        long finished_now = 0;
        CURL *e;
        while ((e = next_finished(multi, &tally))) {
            struct slot *sl;
            curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&sl);
            idle[nidle++] = sl;
            done++;
            finished_now++;
        }
        /* Freed handles go straight back to work; sleep only when nothing finished. */
        if (done < total && finished_now == 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double secs = now() - t0;
    print_result(total, &tally, secs);
    for (long i = 0; i < window; i++) {
        curl_multi_remove_handle(multi, slots[i].easy);
        curl_easy_cleanup(slots[i].easy);
        free(slots[i].buf);
    }
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    free(slots);
    free(idle);
    free(body);
    curl_global_cleanup();
    return tally.failed == 0 && tally.non2xx == 0 ? 0 : 1;
}
