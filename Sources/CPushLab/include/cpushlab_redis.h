// hiredis: what Swift cannot reach directly (struct timeval by value, the errstr array).
// Only PushRedis uses these; its Swift types keep the C ones inside.
#ifndef CPUSHLAB_REDIS_H
#define CPUSHLAB_REDIS_H

#include <hiredis/hiredis.h>

/// Connects (blocking) within `connect_timeout_ms`, then sets the socket read/write timeout
/// to `io_timeout_ms` (0: none) and TCP keepalive. Returns NULL only when out of memory;
/// otherwise check `err` on the context.
redisContext *cpl_redis_connect(const char *host, int port, int connect_timeout_ms, int io_timeout_ms);

/// Sets the socket read/write timeout (0: none). Returns REDIS_OK, or REDIS_ERR (also, doing
/// nothing, for a context that already failed).
int cpl_redis_set_timeout_ms(redisContext *context, int timeout_ms);

/// The context's error text (hiredis keeps it in a fixed array).
const char *cpl_redis_errstr(const redisContext *context);

#endif
