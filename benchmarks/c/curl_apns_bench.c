/*
 * curl_apns_bench: the C libcurl loop of curl_multi_bench.c, sending what `pushlab send apns
 * --tokens` sends: POST /3/device/<64 hex digits, a new token per request> with the header
 * lines authorization (the bearer JWT given), apns-push-type, apns-topic, apns-priority, apns-id
 * (a new one per request, its line rewritten in place) and content-type, the user agent
 * pushlab/0.1 and a 73-byte JSON payload; the answer's apns-id header is copied out (the least
 * a real sender reads). The peer for pushlab's send path: what libcurl itself costs for an
 * APNs-shaped request, used as a C program would use it. Linked with Sources/CPushLab/curl_shim.c
 * (-rdynamic), it drops libcurl 7.88's redundant RST_STREAM after each bodiless answer as pushlab does.
 *
 *   curl_apns_bench BASEURL TOTAL WINDOW CAFILE AUTHORIZATION
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
    char url[512];
    char apns_id[64];
    struct curl_slist *headers, *id_node;
    char *buf;
    size_t len, cap;
};

static size_t on_body(char *p, size_t s, size_t n, void *u) {
    struct slot *sl = u;
    buffer_append(&sl->buf, &sl->len, &sl->cap, p, s * n);
    return s * n;
}

static size_t on_header(char *p, size_t s, size_t n, void *u) {
    struct slot *sl = u;
    size_t len = s * n;
    if (len > 9 && strncasecmp(p, "apns-id:", 8) == 0) {
        size_t v = len - 9 < sizeof sl->apns_id - 1 ? len - 9 : sizeof sl->apns_id - 1;
        memcpy(sl->apns_id, p + 9, v);
        sl->apns_id[v] = 0;
    }
    return len;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s BASEURL TOTAL WINDOW CAFILE AUTHORIZATION\n", argv[0]);
        return 2;
    }
    const char *base = argv[1], *cafile = argv[4], *authorization = argv[5];
    long total = atol(argv[2]), window = atol(argv[3]);
    static const char payload[] = "{\"aps\":{\"alert\":{\"title\":\"Benchmark\",\"body\":\"Hello from the benchmark\"}}}";
    char auth_line[4096];
    snprintf(auth_line, sizeof auth_line, "authorization: %s", authorization);

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, window);

    struct slot *slots = calloc((size_t)window, sizeof *slots);
    struct slot **idle = calloc((size_t)window, sizeof *idle);
    long nidle = 0;
    for (long i = 0; i < window; i++) {
        struct slot *sl = &slots[i];
        sl->headers = curl_slist_append(NULL, auth_line);
        curl_slist_append(sl->headers, "apns-push-type: alert");
        curl_slist_append(sl->headers, "apns-topic: io.pushlab.demo");
        curl_slist_append(sl->headers, "apns-priority: 10");
        curl_slist_append(sl->headers, "apns-id: 00000000-0000-0000-0000-000000000000");
        curl_slist_append(sl->headers, "content-type: application/json");
        sl->id_node = sl->headers->next->next->next->next;
        sl->easy = curl_easy_init();
        curl_easy_setopt(sl->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(sl->easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(sl->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(sl->easy, CURLOPT_CAINFO, cafile);
        curl_easy_setopt(sl->easy, CURLOPT_USERAGENT, "pushlab/0.1");
        curl_easy_setopt(sl->easy, CURLOPT_POSTFIELDS, payload);
        curl_easy_setopt(sl->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(sizeof payload - 1));
        curl_easy_setopt(sl->easy, CURLOPT_HTTPHEADER, sl->headers);
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
    double t0 = now();
    while (done < total) {
        while (nidle > 0 && started < total) {
            struct slot *sl = idle[--nidle];
            sl->len = 0;
            /* A new device token and apns-id per push, as a bulk send has. */
            snprintf(sl->url, sizeof sl->url, "%s/3/device/%064lx", base, started);
            curl_easy_setopt(sl->easy, CURLOPT_URL, sl->url);
            snprintf(sl->id_node->data, 46, "apns-id: %08lx-0000-4000-8000-%012lx", started, started);
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
        if (done < total && finished_now == 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double secs = now() - t0;
    print_result(total, &tally, secs);
    for (long i = 0; i < window; i++) {
        curl_multi_remove_handle(multi, slots[i].easy);
        curl_easy_cleanup(slots[i].easy);
        curl_slist_free_all(slots[i].headers);
        free(slots[i].buf);
    }
    curl_multi_cleanup(multi);
    free(slots);
    free(idle);
    curl_global_cleanup();
    return tally.failed == 0 && tally.non2xx == 0 ? 0 : 1;
}
