/*
 * log.c - one line per event on stderr, written whole: text ("TIME privd
 * LEVEL: message") or, with log.format: json, a JSON object a line for
 * journald and log shippers. Level and format change on a reload.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <jansson.h>

#include "log.h"

static atomic_int debug_on;
static atomic_int json_on;

/* The line as JSON (caller frees), or NULL. jansson escapes; bytes that
 * are not UTF-8 (a name read from a request) become '?'. */
static char *
json_line(const char *ts, const char *level, char *msg)
{
	json_t *o, *m;
	char *line, *p;

	if ((m = json_string(msg)) == NULL) {
		for (p = msg; *p; p++)
			if ((unsigned char)*p >= 0x80)
				*p = '?';
		m = json_string(msg);
	}
	o = json_pack("{s:s, s:s, s:s, s:o*}", "time", ts, "service", "privd", "level", level,
	    "msg", m);
	line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	return line;
}

static void
vlog(const char *level, const char *fmt, va_list ap)
{
	char msg[1024];
	char ts[32], *line;
	struct tm tm;
	time_t now = time(NULL);

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (atomic_load(&json_on) && (line = json_line(ts, level, msg)) != NULL) {
		fprintf(stderr, "%s\n", line);
		free(line);
		return;
	}
	fprintf(stderr, "%s privd %s: %s\n", ts, level, msg);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("info", fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warn", fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!atomic_load(&debug_on))
		return;
	va_start(ap, fmt);
	vlog("debug", fmt, ap);
	va_end(ap);
}

void
log_set_debug(int on)
{
	atomic_store(&debug_on, on);
}

void
log_set_json(int on)
{
	atomic_store(&json_on, on);
}
