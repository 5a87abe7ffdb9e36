/* log.c - one-line log messages on stderr; a line is written whole. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

static int debug_on;

static void
vlog(const char *level, const char *fmt, va_list ap)
{
	char line[1024];
	char ts[32];
	struct tm tm;
	time_t now = time(NULL);
	int n;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = snprintf(line, sizeof(line), "%s privd %s: ", ts, level);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	fprintf(stderr, "%s\n", line);
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

	if (!debug_on)
		return;
	va_start(ap, fmt);
	vlog("debug", fmt, ap);
	va_end(ap);
}

void
log_set_debug(int on)
{
	debug_on = on;
}
