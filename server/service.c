/*
 * service.c - privd as a systemd service (service.h). One thread asks the
 * follower's state a few times a second: it says READY=1 when the first
 * snapshot is published (not when the socket opens: a print server started
 * after privd would otherwise meet 503s), STATUS= when the state changes,
 * and WATCHDOG=1 only while the follower's loop has turned within the watchdog's
 * interval and the HTTP server has answered a request of its own on
 * loopback: a privd wedged in either is restarted by systemd, not left
 * answering from a snapshot that no longer moves, or not answering at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "monotime.h"
#include "pending.h"
#include "service.h"
#include "snapshot.h"
#include "sync.h"
#include "worker.h"

static const struct cfg *cfg;
static struct worker teller = WORKER_INIT;


/* The state in a line, as systemctl status shows it. */
static void
status_line(char *out, size_t n)
{
	enum sync_state st = sync_state();
	struct pending_status ps;
	const struct snap *s;
	char why[200];
	size_t len;
	int t;

	sync_last_error(why, sizeof(why));
	s = snap_enter(&t);
	if (st == SYNC_STARTING)
		snprintf(out, n, "waiting for the first snapshot from LDAP%s%s",
		    why[0] ? ": " : "", why);
	else if (st == SYNC_STALE)
		snprintf(out, n, "stale: LDAP unreachable (%s); answering from a snapshot "
		    "of %ld s ago", why[0] ? why : "connection lost",
		    s ? (long)(time(NULL) - s->built) : 0L);
	else
		snprintf(out, n, "following LDAP: %zu accounts, %zu cells",
		    s ? s->naccounts : 0, s ? s->ncells : 0);
	snap_leave(t);
	pending_status(&ps);
	len = strlen(out);
	if (ps.open && len < n)
		snprintf(out + len, n - len, "; import %s open: answering the model before it",
		    ps.id);
}

static size_t
discard(char *p, size_t size, size_t nmemb, void *arg)
{
	(void)p;
	(void)arg;
	return size * nmemb;
}

/* Whether the HTTP server answers /healthz on its own address. */
static int
http_answers(void)
{
	const char *host = cfg->listen_host;
	char url[300];
	long status = 0;
	CURL *c;
	int ok;

	if (strcmp(host, "0.0.0.0") == 0)
		host = "127.0.0.1";
	else if (strcmp(host, "::") == 0)
		host = "::1";
	snprintf(url, sizeof(url), "%s://%s%s%s:%d/healthz", cfg->tls_cert ? "https" : "http",
	    strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", cfg->listen_port);
	if ((c = curl_easy_init()) == NULL)
		return 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* its own certificate, perhaps for a name, not an address: only
	 * whether it answers matters here */
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	ok = curl_easy_perform(c) == CURLE_OK &&
	    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status == 200;
	curl_easy_cleanup(c);
	return ok;
}

static void
run(struct worker *w)
{
	char status[512], said[512] = "";
	uint64_t wd_usec = 0;
	long long wd_ms, last_ping = 0, now;
	int ready = 0, quiet = 0;

	if (sd_watchdog_enabled(0, &wd_usec) <= 0)
		wd_usec = 0;
	wd_ms = (long long)(wd_usec / 1000);
	do {
		status_line(status, sizeof(status));
		if (!ready && sync_state() == SYNC_LIVE) {
			sd_notifyf(0, "READY=1\nSTATUS=%s", status);
			snprintf(said, sizeof(said), "%s", status);
			ready = 1;
		} else if (strcmp(status, said) != 0) {
			sd_notifyf(0, "STATUS=%s", status);
			snprintf(said, sizeof(said), "%s", status);
		}
		now = monotime_ms();
		if (wd_ms > 0 && now - last_ping >= wd_ms / 3) {
			long long age = now - sync_beat_ms();

			if (age > wd_ms) {
				if (!quiet)
					log_warn("watchdog: the LDAP follower has not run for %lld ms; "
					    "systemd is not told privd is alive", age);
				quiet = 1;
			} else if (!http_answers()) {
				if (!quiet)
					log_warn("watchdog: privd's HTTP server does not answer "
					    "/healthz; systemd is not told privd is alive");
				quiet = 1;
			} else {
				sd_notify(0, "WATCHDOG=1");
				last_ping = now;
				quiet = 0;
			}
		}
	} while (!worker_sleep(w, 200));
}

int
svc_start(const struct cfg *c)
{
	const char *sock = getenv("NOTIFY_SOCKET");

	if (sock == NULL || *sock == '\0')
		return 0;
	cfg = c;
	return worker_start(&teller, run);
}

void
svc_reloading(void)
{
	sd_notify(0, "RELOADING=1");
}

void
svc_reloaded(void)
{
	sd_notify(0, "READY=1");
}

void
svc_stop(void)
{
	sd_notify(0, "STOPPING=1");
	worker_stop(&teller);
}
