/* metrics.c - lock-free counters; the exposition reads them without stopping writers. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "textbuf.h"

static const int statuses[] = { 200, 201, 400, 401, 403, 404, 405, 409, 413, 429, 500, 503 };
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))
static const double buckets[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5 };
#define NBUCKET (sizeof(buckets) / sizeof(buckets[0]))

static const char *const *route_names;
static int nroutes;
static atomic_ulong requests[METRICS_ROUTES_MAX][NSTATUS + 1];	/* last: other */
static atomic_ulong hist[NBUCKET + 1];
static atomic_ulong sum_usec;
static atomic_ulong count;

void
metrics_routes(const char *const *names, int n)
{
	route_names = names;
	nroutes = n < METRICS_ROUTES_MAX ? n : METRICS_ROUTES_MAX;
}

void
metrics_observe(int route, int status, double seconds)
{
	size_t s, b;

	if (route < 0 || route >= nroutes)
		return;
	for (s = 0; s < NSTATUS && statuses[s] != status; s++)
		;
	atomic_fetch_add(&requests[route][s], 1);
	for (b = 0; b < NBUCKET && seconds > buckets[b]; b++)
		;
	atomic_fetch_add(&hist[b], 1);
	atomic_fetch_add(&sum_usec, (unsigned long)(seconds * 1e6));
	atomic_fetch_add(&count, 1);
}

char *
metrics_render(const char *extra)
{
	struct textbuf b = { NULL, 0, 0, 0 };
	unsigned long cum = 0;
	size_t s, k;
	int r;

	textbuf_add(&b, "# HELP privd_http_requests_total HTTP requests answered, by route and status.\n"
	    "# TYPE privd_http_requests_total counter\n");
	for (r = 0; r < nroutes; r++)
		for (s = 0; s <= NSTATUS; s++) {
			unsigned long v = atomic_load(&requests[r][s]);
			char code[8];

			if (v == 0)
				continue;
			if (s < NSTATUS)
				snprintf(code, sizeof(code), "%d", statuses[s]);
			else
				snprintf(code, sizeof(code), "other");
			textbuf_add(&b, "privd_http_requests_total{route=\"%s\",status=\"%s\"} %lu\n",
			    route_names[r], code, v);
		}
	textbuf_add(&b, "# HELP privd_http_request_duration_seconds Time to answer a request.\n"
	    "# TYPE privd_http_request_duration_seconds histogram\n");
	for (k = 0; k <= NBUCKET; k++) {
		cum += atomic_load(&hist[k]);
		if (k < NBUCKET)
			textbuf_add(&b, "privd_http_request_duration_seconds_bucket{le=\"%g\"} %lu\n",
			    buckets[k], cum);
		else
			textbuf_add(&b, "privd_http_request_duration_seconds_bucket{le=\"+Inf\"} %lu\n", cum);
	}
	textbuf_add(&b, "privd_http_request_duration_seconds_sum %.6f\n",
	    atomic_load(&sum_usec) / 1e6);
	textbuf_add(&b, "privd_http_request_duration_seconds_count %lu\n", atomic_load(&count));
	if (extra)
		textbuf_add(&b, "%s", extra);
	return textbuf_take(&b);
}
