/* api_status.c - /healthz, /readyz and /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "conns.h"
#include "ldpool.h"
#include "metrics.h"
#include "publish.h"
#include "mirror.h"
#include "pending.h"
#include "skew.h"
#include "snapshot.h"
#include "sync.h"
#include "uentry.h"
#include "writers.h"

enum MHD_Result
api_healthz(struct req *r)
{
	return http_json(r, 200, json_pack("{s:s}", "status", "ok"));
}

enum MHD_Result
api_readyz(struct req *r)
{
	enum sync_state st = sync_state();
	struct pending_status ps;
	const struct snap *s;
	char why[256];
	json_t *o;
	int t, ready;

	s = snap_enter(&t);
	ready = s != NULL && st == SYNC_LIVE;
	o = json_pack("{s:b, s:b}", "ready", ready, "stale", st == SYNC_STALE);
	if (o != NULL && s != NULL) {
		json_object_set_new(o, "snapshot_age_s", json_integer(time(NULL) - s->built));
		json_object_set_new(o, "accounts", json_integer((json_int_t)s->naccounts));
		json_object_set_new(o, "cells", json_integer((json_int_t)s->ncells));
	}
	snap_leave(t);
	pending_status(&ps);
	if (o != NULL && ps.open) {
		/* readers get the model as it was before the import until it closes;
		 * who started it is for administrators (GET /v1/imports), not for
		 * anyone who can reach /readyz */
		json_object_set_new(o, "import", json_pack("{s:s, s:s, s:I, s:b, s:s}",
		    "id", ps.id, "what", ps.what,
		    "open_s", (json_int_t)(ps.started ? time(NULL) - ps.started : 0),
		    "stale", ps.stale, "answering", "the model before this import"));
	}
	if (o != NULL) {
		/* reads and charges go on; expiry and a new period wait for a clock
		 * within the bound (skew.h) */
		double off, age;
		int known = skew_offset(&off, &age) == 0;

		json_object_set_new(o, "clock", json_pack("{s:b, s:o, s:o, s:f}", "trusted",
		    skew_trusted(), "offset_s", known ? json_real(off) : json_null(),
		    "measured_s_ago", known ? json_real(age) : json_null(), "bound_s",
		    SKEW_BOUND_S));
	}
	if (o != NULL && !ready) {
		sync_last_error(why, sizeof(why));
		json_object_set_new(o, "reason", json_string(st == SYNC_STARTING ?
		    "no snapshot yet: the first sync with LDAP has not finished" :
		    "the LDAP sync connection is down; answering from the last snapshot"));
		if (why[0])
			json_object_set_new(o, "ldap_error", json_string(why));
	}
	return http_json(r, ready ? 200 : 503, o);
}

/* Appends one metric family with a sample per write provider to buf (a
 * NUL-terminated string of size n): taken, or down. */
static void
provider_family(char *buf, size_t n, const char *name, const char *help, const char *type,
    int down_not_taken)
{
	size_t i, len = strlen(buf);

	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, "# HELP %s %s\n# TYPE %s %s\n", name,
		    help, name, type);
	for (i = 0; i < ldpool_providers() && len < n; i++) {
		unsigned long long taken;
		const char *uri;
		int down;

		ldpool_provider(i, &uri, &taken, &down);
		len += (size_t)snprintf(buf + len, n - len, "%s{provider=\"%s\"} %llu\n", name, uri,
		    down_not_taken ? (unsigned long long)down : taken);
	}
}

enum MHD_Result
api_metrics(struct req *r)
{
	struct pending_status ps;
	const struct snap *s;
	char extra[8192];
	unsigned long long ubytes, uentries;
	long full, derived;
	size_t wq, wb, n;
	int t;

	pending_status(&ps);
	sync_usage_traffic(&ubytes, &uentries);
	mirror_builds(&full, &derived);
	s = snap_enter(&t);
	snprintf(extra, sizeof(extra),
	    "# HELP privd_snapshot_age_seconds Seconds since the snapshot was built.\n"
	    "# TYPE privd_snapshot_age_seconds gauge\n"
	    "privd_snapshot_age_seconds %lld\n"
	    "# HELP privd_snapshot_accounts Accounts in the snapshot.\n"
	    "# TYPE privd_snapshot_accounts gauge\n"
	    "privd_snapshot_accounts %zu\n"
	    "# HELP privd_snapshot_cells Cells in the snapshot.\n"
	    "# TYPE privd_snapshot_cells gauge\n"
	    "privd_snapshot_cells %zu\n"
	    "# HELP privd_snapshot_membership_cells Distinct membership cells precomputed.\n"
	    "# TYPE privd_snapshot_membership_cells gauge\n"
	    "privd_snapshot_membership_cells %zu\n"
	    "# HELP privd_snapshot_build_seconds Time the last snapshot took to build or derive.\n"
	    "# TYPE privd_snapshot_build_seconds gauge\n"
	    "privd_snapshot_build_seconds %.6f\n"
	    "# HELP privd_snapshot_builds_total Snapshots built in full, and derived from the one before for a few people's changes.\n"
	    "# TYPE privd_snapshot_builds_total counter\n"
	    "privd_snapshot_builds_total{kind=\"full\"} %ld\n"
	    "privd_snapshot_builds_total{kind=\"derived\"} %ld\n"
	    "# HELP privd_ldap_reconnects_total Times the LDAP sync connection was re-established.\n"
	    "# TYPE privd_ldap_reconnects_total counter\n"
	    "privd_ldap_reconnects_total %llu\n"
	    "# HELP privd_stale 1 while answering from a snapshot LDAP no longer follows.\n"
	    "# TYPE privd_stale gauge\n"
	    "privd_stale %d\n"
	    "# HELP privd_import_open 1 while an import is open (readers see the model before it).\n"
	    "# TYPE privd_import_open gauge\n"
	    "privd_import_open %d\n"
	    "# HELP privd_import_open_seconds How long the open import has been open (0: none).\n"
	    "# TYPE privd_import_open_seconds gauge\n"
	    "privd_import_open_seconds %lld\n"
	    "# HELP privd_import_stale 1 when the open import is older than imports.stale_after.\n"
	    "# TYPE privd_import_stale gauge\n"
	    "privd_import_stale %d\n"
	    "# HELP privd_sync_usage_bytes_total Bytes of DNs, attribute names and values on the usage stream.\n"
	    "# TYPE privd_sync_usage_bytes_total counter\n"
	    "privd_sync_usage_bytes_total %llu\n"
	    "# HELP privd_sync_usage_entries_total Entries received on the usage stream.\n"
	    "# TYPE privd_sync_usage_entries_total counter\n"
	    "privd_sync_usage_entries_total %llu\n"
	    "# HELP privd_quota_read_backs_total Quota writes read back by a second search (no post-read answer).\n"
	    "# TYPE privd_quota_read_backs_total counter\n"
	    "privd_quota_read_backs_total %llu\n",
	    s ? (long long)(time(NULL) - s->built) : -1LL,
	    s ? s->naccounts : 0, s ? s->ncells : 0, s ? s->nmres + s->over_mres.len : 0,
	    mirror_build_seconds(), full, derived, (unsigned long long)sync_reconnects(),
	    sync_state() == SYNC_STALE, ps.open,
	    ps.open && ps.started ? (long long)(time(NULL) - ps.started) : 0LL, ps.stale,
	    ubytes, uentries, uent_read_backs());
	snap_leave(t);
	provider_family(extra, sizeof(extra), "privd_ldap_writes_taken_total",
	    "Write connections taken, by provider.", "counter", 0);
	provider_family(extra, sizeof(extra), "privd_ldap_provider_down",
	    "1 while writes skip that provider.", "gauge", 1);
	conns_metrics(extra, sizeof(extra));
	writers_load(&wq, &wb);
	n = strlen(extra);
	snprintf(extra + n, sizeof(extra) - n,
	    "# HELP privd_http_writes_queued Writes waiting for a writer (http.writers).\n"
	    "# TYPE privd_http_writes_queued gauge\n"
	    "privd_http_writes_queued %zu\n"
	    "# HELP privd_http_writers_busy Writers running a write now.\n"
	    "# TYPE privd_http_writers_busy gauge\n"
	    "privd_http_writers_busy %zu\n", wq, wb);
	{
		double off = 0, age = 0;
		char val[32] = "NaN";

		if (skew_offset(&off, &age) == 0)
			snprintf(val, sizeof(val), "%.3f", off);
		n = strlen(extra);
		snprintf(extra + n, sizeof(extra) - n,
		    "# HELP privd_clock_offset_seconds This clock less the directory's, from the entryCSN of privd's own writes (NaN: not measured yet).\n"
		    "# TYPE privd_clock_offset_seconds gauge\n"
		    "privd_clock_offset_seconds %s\n"
		    "# HELP privd_clock_trusted 1 while the offset is within the bound (doc/security.md): holds expire and periods start.\n"
		    "# TYPE privd_clock_trusted gauge\n"
		    "privd_clock_trusted %d\n", val, skew_trusted());
	}
	publish_metrics(extra, sizeof(extra));
	return http_text(r, 200, "text/plain; version=0.0.4", metrics_render(extra));
}
