/*
 * service.h - privd as a systemd service (Type=notify): readiness once the
 * first snapshot is published, a STATUS= line that follows the directory,
 * the watchdog kept only while the threads that matter run, and the
 * reload and stop notifications. Without NOTIFY_SOCKET all are no-ops.
 */
#ifndef PRIVD_SERVICE_H
#define PRIVD_SERVICE_H

#include "config.h"

/* Starts the thread that tells systemd (when NOTIFY_SOCKET is set). */
int svc_start(const struct cfg *c);
/* A reload begins (RELOADING=1) / has ended (READY=1). */
void svc_reloading(void);
void svc_reloaded(void);
/* STOPPING=1, and the thread stopped. */
void svc_stop(void);

#endif
