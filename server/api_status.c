/* api_status.c - /healthz, /readyz and /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "api.h"
#include "metrics.h"
#include "snapshot.h"
#include "sync.h"

enum MHD_Result
api_healthz(struct req *r)
{
	return http_json(r, 200, json_pack("{s:s}", "status", "ok"));
}

enum MHD_Result
api_readyz(struct req *r)
{
	enum sync_state st = sync_state();
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

enum MHD_Result
api_metrics(struct req *r)
{
	const struct snap *s;
	char extra[1024];
	int t;

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
	    "# HELP privd_snapshot_build_seconds Time the last snapshot took to build.\n"
	    "# TYPE privd_snapshot_build_seconds gauge\n"
	    "privd_snapshot_build_seconds %.6f\n"
	    "# HELP privd_ldap_reconnects_total Times the LDAP sync connection was re-established.\n"
	    "# TYPE privd_ldap_reconnects_total counter\n"
	    "privd_ldap_reconnects_total %llu\n"
	    "# HELP privd_stale 1 while answering from a snapshot LDAP no longer follows.\n"
	    "# TYPE privd_stale gauge\n"
	    "privd_stale %d\n",
	    s ? (long long)(time(NULL) - s->built) : -1LL,
	    s ? s->naccounts : 0, s ? s->ncells : 0, s ? s->nmres : 0,
	    sync_build_seconds(), (unsigned long long)sync_reconnects(),
	    sync_state() == SYNC_STALE);
	snap_leave(t);
	return http_text(r, 200, "text/plain; version=0.0.4", metrics_render(extra));
}
