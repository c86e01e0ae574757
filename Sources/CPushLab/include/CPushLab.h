// Umbrella header: the C libraries pushlab uses, and small shims for what Swift cannot call
// directly (variadic functions, function-like macros). Each area keeps its own header.
#ifndef CPUSHLAB_H
#define CPUSHLAB_H

#include "cpushlab_curl.h"
#include "cpushlab_fs.h"
#include "cpushlab_h2client.h"
#include "cpushlab_openssl.h"
#include "cpushlab_redis.h"
#include "cpushlab_sanitizer.h"
#include "cpushlab_server.h"
#include "cpushlab_sqlite.h"
#include "cpushlab_yaml.h"

#endif
