// nghttp2 + libevent (+ its OpenSSL bufferevents): the HTTP/2 server's C side.
#ifndef CPUSHLAB_SERVER_H
#define CPUSHLAB_SERVER_H

#include <nghttp2/nghttp2.h>
#include <event2/event.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/buffer.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>

#endif
