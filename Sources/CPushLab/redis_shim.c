#include "cpushlab_redis.h"

static struct timeval cpl_timeval(int ms) {
    struct timeval tv;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    return tv;
}

redisContext *cpl_redis_connect(const char *host, int port, int connect_timeout_ms, int io_timeout_ms) {
    redisContext *context = redisConnectWithTimeout(host, port, cpl_timeval(connect_timeout_ms));
    if (context == NULL || context->err) return context;
    // redisConnectWithTimeout leaves the connect timeout as the socket timeout; replace it.
    if (redisSetTimeout(context, cpl_timeval(io_timeout_ms)) != REDIS_OK) return context;
    redisEnableKeepAlive(context);
    return context;
}

int cpl_redis_set_timeout_ms(redisContext *context, int timeout_ms) {
    // A context that failed is about to be freed and its socket needs no timeout; hiredis
    // would write a new error into it. Reading `err` here, in code built with the sanitizers
    // (hiredis is not), also lets ASan report a call on a freed context (issue 43).
    if (context->err) return REDIS_ERR;
    return redisSetTimeout(context, cpl_timeval(timeout_ms));
}

const char *cpl_redis_errstr(const redisContext *context) { return context->errstr; }
