/*
 * conns.h - who is connected to the HTTP server, and for how long: a limit
 * per client address, whole-time deadlines for an idle connection and for
 * a request's headers and body, and eviction of the idle first when the
 * server nears its connection limit. A slow or idle client is closed by
 * the clock, not by how often it sends a byte.
 */
#ifndef PRIVD_CONNS_H
#define PRIVD_CONNS_H

#include <stddef.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "config.h"

/* Starts the thread that enforces the deadlines; 0 or -1. */
int conns_start(const struct cfg *c);
void conns_stop(void);

/* libmicrohttpd's callbacks: accept policy, connection start and close,
 * and the request line (a request has begun). */
enum MHD_Result conns_accept(void *cls, const struct sockaddr *addr, socklen_t len);
void conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
    enum MHD_ConnectionNotificationCode code);
void *conns_request_line(void *cls, const char *uri, struct MHD_Connection *conn);

/* The request on conn has been read in full (its handler runs now), or
 * answered (the connection waits for the next). */
void conns_busy(struct MHD_Connection *conn);
void conns_idle(struct MHD_Connection *conn);

/* Open connections now. */
size_t conns_open(void);
/* The Prometheus lines of the counters, appended to buf (NUL-terminated). */
void conns_metrics(char *buf, size_t n);

#endif
