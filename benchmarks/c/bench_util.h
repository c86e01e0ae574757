/*
 * What the C libcurl loops under benchmarks/c share: the clocks they report with, the body
 * buffer each response is copied into, and the one result line the benchmark scripts parse.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* User + system CPU time of this process so far (/proc/self/stat fields 14 and 15), seconds. */
static double cpu_seconds(void) {
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return 0;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Appends `len` bytes to a growing buffer (a response body). */
static void buffer_append(char **buf, size_t *used, size_t *cap, const char *p, size_t len) {
    if (*used + len > *cap) {
        *cap = (*used + len) * 2;
        *buf = realloc(*buf, *cap);
    }
    memcpy(*buf + *used, p, len);
    *used += len;
}

/* Counts the outcome of each finished transfer. */
struct tally {
    long ok, non2xx, failed, connects;
};

/* Takes the next finished transfer off `multi` (removed from it), counts it in `t` and returns
 * its easy handle; NULL when none is left. */
static CURL *next_finished(CURLM *multi, struct tally *t) {
    CURLMsg *msg;
    int queued;
    while ((msg = curl_multi_info_read(multi, &queued))) {
        if (msg->msg != CURLMSG_DONE) continue;
        CURL *e = msg->easy_handle;
        CURLcode result = msg->data.result;
        long status = 0, nc = 0;
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &nc);
        t->connects += nc;
        if (result != CURLE_OK) {
            if (t->failed == 0) fprintf(stderr, "first error: %s\n", curl_easy_strerror(result));
            t->failed++;
        } else if (status < 200 || status >= 300) t->non2xx++;
        else t->ok++;
        curl_multi_remove_handle(multi, e);
        return e;
    }
    return NULL;
}

/* The result line: key=value pairs (the benchmark scripts read ok, rps and cpu_us_per_req). */
static void print_result(long total, const struct tally *t, double secs) {
    double cpu = cpu_seconds();
    printf("requests=%ld ok=%ld non2xx=%ld failed=%ld connections=%ld seconds=%.3f rps=%.0f cpu_s=%.2f cpu_us_per_req=%.1f\n",
           total, t->ok, t->non2xx, t->failed, t->connects, secs, (t->ok + t->non2xx) / secs, cpu, cpu * 1e6 / (double)total);
}

#endif
