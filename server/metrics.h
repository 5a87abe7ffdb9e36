/* metrics.h - request counters and latency histogram, in Prometheus text. */
#ifndef PRIVD_METRICS_H
#define PRIVD_METRICS_H

#include <stddef.h>

#define METRICS_ROUTES_MAX 96

/* Names the routes (index = route id); call once before serving. */
void metrics_routes(const char *const *names, int n);
/* Records one answered request. */
void metrics_observe(int route, int status, double seconds);
/* Appends the text exposition to a malloc'd buffer; the caller frees it.
 * extra is appended verbatim (gauges owned by other modules). */
char *metrics_render(const char *extra);

#endif
