/*
 * backend.c - privd-cups, a CUPS backend that wraps another one. A queue
 * whose device URI is privd:/ipp://host/ipp/print prints through it: the
 * job's user must hold the queue's printer.access element (and print.colour
 * for colour), its pages are counted and held on the user's quota, the real
 * backend ($CUPS_SERVERBIN/backend/ipp) prints it, and the hold is
 * committed when it printed or released when it did not. cupsd learns what
 * happened from the stderr lines and the exit status, both kept here.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cups/backend.h>
#include <cups/cups.h>
#include <curl/curl.h>
#include <jansson.h>

#include "colour.h"
#include "cupsconf.h"
#include "keyfile.h"
#include "money.h"
#include "pages.h"
#include "rest.h"

#define RID_MAX		128	/* privd's request ids */
#define ATTEMPTS_MAX	50	/* holds one job may take over cupsd's retries */
#define SETTLE_WAIT	60	/* seconds to keep trying to settle a hold */

struct job {
	const char *id, *user, *title, *options, *file;
	const char *queue, *inner, *type;
	long copies;
	long ttl;		/* of the hold: how long printing may take */
	int colour;
	char backend[PATH_MAX];	/* the real backend program */
	char spool[PATH_MAX];	/* stdin, spooled: removed at the end */
	long pages;		/* per copy */
	long long amount;	/* pages x copies; priced: the cost privd gave */
	/* a printer with a rate card in privd: privd prices the job */
	int priced;
	char card_quota[128];	/* the quota its card draws on */
	char currency[8];	/* "" for a quota of pages */
	long mono, colour_n;	/* pages of one copy, by kind */
	const char *sides, *media;
	const char *quota;
	const char *pool;	/* -o privd-pool=CELL: charge that pool */
	char held[1024];	/* where the hold sits: its commit path, from privd */
	char rid[RID_MAX + 1];	/* the hold's request id */
	char base[RID_MAX - 16];	/* cups:HOST:QUEUE:JOB, room for ".N" */
	struct cupsconf_queue q;
};

static volatile sig_atomic_t cancelled;
static volatile pid_t child;

/* One line to cupsd: ERROR and WARNING lines reach the job's state message. */
static void __attribute__((format(printf, 2, 3)))
say(const char *level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: privd: %s\n", level, msg);
}

/*
 * A refusal, for the job's owner: an INFO line is the job's own message
 * (job-printer-state-message), which a policy's JobPrivateValues hides from
 * everyone but the owner and operators (deploy/cups/README.md). An ERROR
 * line would set the printer's state message too, which every local user
 * and the CUPS web page show, and cupsd keeps an ERROR over a later INFO:
 * so a refusal, which names a person and their balance, is never one.
 */
static void __attribute__((format(printf, 1, 2)))
refuse(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "INFO: privd: %s\n", msg);
}

static void
on_term(int sig)
{
	(void)sig;
	cancelled = 1;
	if (child > 0)
		kill(child, SIGTERM);
}

/* Request ids allow [A-Za-z0-9._:-]: anything else in a name becomes '-'. */
static void
id_part(char *dst, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < n; i++)
		dst[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '_' ?
		    s[i] : '-';
	dst[i] = '\0';
}

/* privd:/SCHEME://... gives the inner URI and the program that prints it. */
static int
inner_uri(struct job *j, const char *uri)
{
	const char *serverbin = getenv("CUPS_SERVERBIN");
	size_t sl;

	if (uri == NULL || strncmp(uri, "privd:/", 7) != 0) {
		say("ERROR", "device URI '%s' is not privd:/SCHEME://...", uri ? uri : "");
		return -1;
	}
	j->inner = uri + 7;
	sl = strspn(j->inner, "abcdefghijklmnopqrstuvwxyz0123456789+.-");
	if (sl == 0 || sl > 32 || j->inner[sl] != ':' || strncmp(j->inner, "privd:", 6) == 0) {
		say("ERROR", "device URI 'privd:/%s' does not wrap another backend's URI "
		    "(privd:/ipp://HOST/ipp/print)", j->inner);
		return -1;
	}
	snprintf(j->backend, sizeof(j->backend), "%s/backend/%.*s",
	    serverbin && *serverbin ? serverbin : "/usr/lib/cups", (int)sl, j->inner);
	if (access(j->backend, X_OK) != 0) {
		say("ERROR", "no backend program %s for 'privd:/%s'", j->backend, j->inner);
		return -1;
	}
	return 0;
}

/* A spool file of stdin, when cupsd gave no file: pages are counted first. */
static int
spool_stdin(struct job *j)
{
	const char *tmp = getenv("TMPDIR");
	char buf[65536];
	ssize_t n;
	int fd;

	snprintf(j->spool, sizeof(j->spool), "%s/privd-cups-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(j->spool)) < 0) {
		say("ERROR", "cannot spool the job to %s: %s", j->spool, strerror(errno));
		j->spool[0] = '\0';
		return -1;
	}
	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR && !cancelled)
			continue;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			say("ERROR", "cannot spool the job to %s: %s", j->spool, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	j->file = j->spool;
	return 0;
}

/* An amount as the user reads it: money, or pages. */
static const char *
amount_text(const struct job *j, long long v)
{
	static char buf[MONEY_TEXT_MAX + 16];

	if (j->currency[0])
		return money_format(v, j->currency, buf, sizeof(buf));
	snprintf(buf, sizeof(buf), "%lld %s", v, j->priced ? "units" : "pages");
	return buf;
}

static json_t *
answer(struct rest *r)
{
	json_t *a = rest_json(r);

	return a ? a : json_object();
}

static const char *
jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* privd could not be asked: what the queue's setting says to do. */
static int
unreachable(const struct job *j, const struct rest *r, const char *what)
{
	switch (j->q.unreachable) {
	case CUPSCONF_ALLOW:
		say("WARNING", "%s: %s; printing job %s on %s UNCHARGED (unreachable: allow)",
		    what, r->error[0] ? r->error : "privd is failing", j->id, j->queue);
		return -1;	/* go on without privd */
	case CUPSCONF_HOLD:
		say("ERROR", "%s: %s; job held (unreachable: hold)", what,
		    r->error[0] ? r->error : "privd is failing");
		return CUPS_BACKEND_HOLD;
	default:
		say("ERROR", "%s: %s; cupsd will try the job again (unreachable: retry)", what,
		    r->error[0] ? r->error : "privd is failing");
		return CUPS_BACKEND_RETRY;
	}
}

/* The answer to a call that came back 5xx or not at all. */
static int
down(const struct rest *r, int rc)
{
	return rc != 0 || r->status >= 500;
}

/* Whether the user may print here (and in colour): -1 yes, or an exit status. */
static int
allowed(struct rest *r, struct job *j, const char *priv, const char *value,
    const char *why)
{
	char path[1024], *u = rest_escape(j->user), *p = rest_escape(priv), *v = NULL;
	json_t *a;
	int rc, ok;

	if (value != NULL)
		v = rest_escape(value);
	if (u == NULL || p == NULL || (value != NULL && v == NULL)) {
		free(u), free(p), free(v);
		say("ERROR", "out of memory");
		return CUPS_BACKEND_FAILED;
	}
	snprintf(path, sizeof(path), "/v1/accounts/%s/check?privilege=%s%s%s", u, p,
	    v ? "&value=" : "", v ? v : "");
	free(u), free(p), free(v);
	rc = rest_call(r, "GET", path, NULL, NULL, 0);
	if (down(r, rc))
		return unreachable(j, r, "checking access");
	a = answer(r);
	if (r->status == 404 && strcmp(jstr(a, "error"), "unknown_privilege") != 0) {
		refuse("%s may not print on %s: privd has no account %s", j->user,
		    j->queue, j->user);
		json_decref(a);
		return CUPS_BACKEND_CANCEL;
	}
	if (r->status != 200) {
		say("ERROR", "cannot check %s for %s on %s: %s: %s", priv, j->user, j->queue,
		    jstr(a, "error"), jstr(a, "message"));
		json_decref(a);
		return CUPS_BACKEND_STOP;	/* the queue's settings are wrong */
	}
	ok = json_is_true(json_object_get(a, "allowed"));
	json_decref(a);
	if (!ok) {
		refuse(why, j->user, j->queue);
		return CUPS_BACKEND_CANCEL;
	}
	return -1;
}

/* Pages per copy of the job, or an exit status. */
static int
count(struct job *j)
{
	char err[512];
	int rc = pages_count(j->file, j->type, &j->pages, err, sizeof(err));

	if (rc < 0) {
		say("ERROR", "cannot count the pages of job %s (%s): %s", j->id, j->type, err);
		return CUPS_BACKEND_CANCEL;
	}
	if (rc == 1) {
		if (j->q.uncountable < 0) {
			say("ERROR", "cannot count the pages of %s, so job %s is not printed "
			    "(uncountable: deny)", j->type, j->id);
			return CUPS_BACKEND_CANCEL;
		}
		j->pages = j->q.uncountable;
		say("INFO", "%s is counted as %ld pages a copy (uncountable)", j->type, j->pages);
	}
	j->amount = (long long)j->pages * j->copies;
	return -1;
}

/*
 * Whether the queue's printer has a rate card in privd: then privd prices
 * the job and the backend sends what it counted. -1 to go on, or an exit
 * status.
 */
static int
card(struct rest *r, struct job *j)
{
	char path[512], *p = rest_escape(j->q.access);
	json_t *a;
	int rc;

	if (p == NULL) {
		say("ERROR", "out of memory");
		return CUPS_BACKEND_FAILED;
	}
	snprintf(path, sizeof(path), "/v1/printers/%s", p);
	free(p);
	rc = rest_call(r, "GET", path, NULL, NULL, 0);
	if (down(r, rc))
		return unreachable(j, r, "reading the printer's rate card");
	if (r->status == 404)
		return -1;	/* no card: page quotas */
	a = answer(r);
	if (r->status != 200) {
		say("ERROR", "cannot read %s's rate card: %s: %s", j->q.access, jstr(a, "error"),
		    jstr(a, "message"));
		json_decref(a);
		return CUPS_BACKEND_STOP;
	}
	j->priced = 1;
	snprintf(j->card_quota, sizeof(j->card_quota), "%s", jstr(a, "charge"));
	snprintf(j->currency, sizeof(j->currency), "%s", jstr(a, "currency"));
	json_decref(a);
	return -1;
}

/* A priced job's pages by kind: a colour job page by page, else all mono. */
static int
classify(struct job *j, double threshold)
{
	char err[512], *kinds = NULL;
	long i;
	int rc;

	j->mono = j->pages;
	j->colour_n = 0;
	if (!j->colour)
		return -1;
	rc = colour_pages(j->file, j->type, threshold, &kinds, err, sizeof(err));
	if (rc != 0) {
		if (j->q.colour_unknown == CUPSCONF_DENY) {
			say("ERROR", "cannot tell colour pages from mono in job %s (%s: %s), so it is "
			    "not printed (colour_unknown: deny)", j->id, j->type, rc > 0 ?
			    "not a type privd-cups classifies" : err);
			return CUPS_BACKEND_CANCEL;
		}
		say("INFO", "job %s: %s; every page is charged as colour (colour_unknown)", j->id,
		    rc > 0 ? "a type privd-cups does not classify" : err);
		j->mono = 0;
		j->colour_n = j->pages;
		return -1;
	}
	j->mono = 0;
	for (i = 0; kinds[i]; i++)
		*(kinds[i] == 'c' ? &j->colour_n : &j->mono) += 1;
	if (i != j->pages)
		say("DEBUG", "job %s: %ld pages counted, %ld classified; charging those classified",
		    j->id, j->pages, i);
	j->pages = i;
	j->amount = (long long)i * j->copies;
	say("INFO", "job %s: %ld colour and %ld mono pages a copy", j->id, j->colour_n, j->mono);
	free(kinds);
	return -1;
}

static char *
metadata(const struct job *j)
{
	char title[201];
	json_t *m;
	char *s;

	snprintf(title, sizeof(title), "%s", j->title);
	m = json_pack("{s:s, s:s, s:s, s:I, s:I, s:b}", "queue", j->queue, "job", j->id,
	    "title", title, "pages", (json_int_t)j->pages, "copies", (json_int_t)j->copies,
	    "colour", j->colour);
	if (m == NULL && (m = json_pack("{s:s, s:s}", "queue", j->queue, "job", j->id)) == NULL)
		return NULL;	/* a title that is not UTF-8: leave it out */
	s = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	return s;
}

/* The user's quota, or with privd-pool the pool's, and tail. */
static char *
quota_path(const struct job *j, const char *tail)
{
	char *u = rest_escape(j->pool ? j->pool : j->user), *q = rest_escape(j->quota), *p = NULL;

	if (u && q && asprintf(&p, "/v1/%s/%s/quotas/%s%s", j->pool ? "pools" : "accounts",
	    u, q, tail) < 0)
		p = NULL;
	free(u);
	free(q);
	return p;
}

/*
 * Holds the job's pages. A job cupsd retries asks again with the same
 * request id and learns where its hold stands: open (use it), committed
 * (it printed: done), released or expired (a failed attempt: the next id).
 * -1 when held, 0 when printed before, or an exit status.
 */
static int
hold(struct rest *r, struct job *j)
{
	char *path = quota_path(j, "/holds"), *meta = metadata(j), *body;
	const char *st;
	json_t *a, *b;
	int k, rc, ret = CUPS_BACKEND_FAILED;

	for (k = 1; path && meta && k <= ATTEMPTS_MAX; k++) {
		if (k == 1)
			snprintf(j->rid, sizeof(j->rid), "%s", j->base);
		else
			snprintf(j->rid, sizeof(j->rid), "%s.%u", j->base, (unsigned char)k);
		if (j->priced)
			b = json_pack("{s:s, s:{s:s, s:{s:I, s:I}, s:s, s:I, s:s*}, s:I, s:o}",
			    "request_id", j->rid, "job", "printer", j->q.access, "pages",
			    "mono", (json_int_t)j->mono, "colour", (json_int_t)j->colour_n,
			    "sides", j->sides, "copies", (json_int_t)j->copies, "media", j->media,
			    "ttl_s", (json_int_t)j->ttl, "metadata", json_loads(meta, 0, NULL));
		else
			b = json_pack("{s:s, s:I, s:I, s:o}", "request_id", j->rid, "amount",
			    (json_int_t)j->amount, "ttl_s", (json_int_t)j->ttl, "metadata",
			    json_loads(meta, 0, NULL));
		/* a pool is charged for the user; or the user's own quota
		 * with the queue's fallback to the pools they may draw on */
		if (b != NULL && j->pool != NULL)
			json_object_set_new(b, "account", json_string(j->user));
		else if (b != NULL && j->q.fallback == CUPSCONF_POOLS)
			json_object_set_new(b, "fallback", json_string("pools"));
		body = b ? json_dumps(b, JSON_COMPACT) : NULL;
		json_decref(b);
		if (body == NULL)
			break;
		rc = rest_call(r, "POST", path, "application/json", body, strlen(body));
		free(body);
		if (down(r, rc)) {
			ret = unreachable(j, r, "holding the job's pages");
			goto done;
		}
		a = answer(r);
		st = jstr(a, "state");
		if (r->status == 201 || (r->status == 200 && strcmp(st, "open") == 0)) {
			const char *to = jstr(a, "pool");

			/* settle where it landed: a fallback may have held a pool */
			snprintf(j->held, sizeof(j->held), "%s", jstr(a, "commit"));
			if (j->priced)
				j->amount = json_integer_value(json_object_get(a, "amount"));
			say("INFO", "%s held on %s%s%s for %s (%s)", amount_text(j, j->amount),
			    j->quota, *to ? " of the pool of " : "", to, j->user, j->rid);
			json_decref(a);
			ret = -1;
			goto done;
		}
		if (r->status == 200 && strcmp(st, "committed") == 0) {
			say("INFO", "job %s printed and was charged before (%s): not printed again",
			    j->id, j->rid);
			json_decref(a);
			ret = 0;
			goto done;
		}
		if ((r->status == 200 && (strcmp(st, "released") == 0 ||
		    strcmp(st, "expired") == 0)) ||
		    strcmp(jstr(a, "error"), "request_id_reused") == 0) {
			json_decref(a);
			continue;	/* an attempt that did not print */
		}
		if (strcmp(jstr(a, "error"), "quota_exceeded") == 0) {
			json_int_t left = json_integer_value(json_object_get(a, "remaining"));

			if (j->priced) {
				char cost[MONEY_TEXT_MAX];

				snprintf(cost, sizeof(cost), "%s", amount_text(j,
				    json_integer_value(json_object_get(a, "cost"))));
				refuse("%s: this job costs %s, %s has %s left in %s",
				    j->quota,
				    cost, j->user, amount_text(j, left > 0 ? left : 0),
				    jstr(a, "period"));
			} else
				refuse("print quota exceeded: this job needs %lld "
				    "pages, %s has %lld left in %s", j->amount, j->user, (long long)(left > 0 ?
				    left : 0), jstr(a, "period"));
			ret = CUPS_BACKEND_CANCEL;
		} else if (r->status == 404 || r->status == 403) {
			refuse("%s may not print on %s: %s", j->user, j->queue,
			    jstr(a, "message"));
			ret = CUPS_BACKEND_CANCEL;
		} else {
			say("ERROR", "cannot hold %lld pages on %s for %s: %s: %s", j->amount, j->quota,
			    j->user, jstr(a, "error"), jstr(a, "message"));
			ret = CUPS_BACKEND_STOP;
		}
		json_decref(a);
		goto done;
	}
	if (path && meta)
		say("ERROR", "job %s was tried %d times: giving up", j->id, ATTEMPTS_MAX);
	else
		say("ERROR", "out of memory");
done:
	free(path);
	free(meta);
	return ret;
}

/*
 * Commits (printed) or releases (not printed) the hold, trying for a while
 * if privd is away: an unsettled hold only expires, it never charges twice.
 */
static void
settle(struct rest *r, struct job *j, int printed)
{
	char tail[RID_MAX + 32], body[64], *path;
	json_t *a;
	int rc, waited = 0, step = 1;

	snprintf(tail, sizeof(tail), "/holds/%s%s", j->rid, printed ? "/commit" : "");
	snprintf(body, sizeof(body), "{\"amount\":%lld}", j->amount);
	if (j->held[0] != '\0') {
		/* the commit path privd gave; a release is the hold itself */
		size_t n = strlen(j->held);

		if (!printed && n > 7 && strcmp(j->held + n - 7, "/commit") == 0)
			n -= 7;
		path = strndup(j->held, n);
	} else
		path = quota_path(j, tail);
	if (path == NULL) {
		say("ERROR", "out of memory settling %s", j->rid);
		return;
	}
	for (;;) {
		rc = printed ? rest_call(r, "POST", path, "application/json", body, strlen(body)) :
		    rest_call(r, "DELETE", path, NULL, NULL, 0);
		if (!down(r, rc) || waited >= SETTLE_WAIT)
			break;
		sleep((unsigned)step);
		waited += step;
		step = step < 8 ? step * 2 : step;
	}
	a = answer(r);
	if (down(r, rc))
		say(printed ? "ERROR" : "WARNING", "%s: %s; the hold %s stays until it expires%s",
		    printed ? "cannot charge the printed job" : "cannot release the hold",
		    r->error[0] ? r->error : jstr(a, "message"), j->rid,
		    printed ? " and the job goes uncharged" : "");
	else if (r->status >= 400 && !(printed == 0 && strcmp(jstr(a, "error"), "hold_settled") == 0))
		say("ERROR", "%s %s: %s: %s", printed ? "committing" : "releasing", j->rid,
		    jstr(a, "error"), jstr(a, "message"));
	else if (printed && j->priced) {
		char cost[MONEY_TEXT_MAX + 16];

		snprintf(cost, sizeof(cost), "%s", amount_text(j, j->amount));
		say("INFO", "%s charged to %s, %s left", cost, j->quota, amount_text(j,
		    json_integer_value(json_object_get(a, "remaining"))));
	} else if (printed)
		say("INFO", "%lld pages charged to %s on %s", j->amount, j->user, j->quota);
	else
		say("INFO", "job %s did not print: its hold %s is released", j->id, j->rid);
	json_decref(a);
	free(path);
}

/* Runs the real backend on the job; its exit status (CUPS_BACKEND_*). */
static int
run_backend(struct job *j, char **argv, int argc)
{
	char *av[8];
	int i, st;
	pid_t pid, w;

	av[0] = (char *)j->inner;
	for (i = 1; i < 6; i++)
		av[i] = argv[i];
	av[6] = argc == 7 ? argv[6] : NULL;
	av[7] = NULL;
	if ((pid = fork()) < 0) {
		say("ERROR", "cannot start %s: %s", j->backend, strerror(errno));
		return CUPS_BACKEND_RETRY;
	}
	if (pid == 0) {
		if (j->spool[0]) {
			int fd = open(j->spool, O_RDONLY);

			if (fd < 0 || dup2(fd, 0) < 0)
				_exit(CUPS_BACKEND_FAILED);
			close(fd);
		}
		setenv("DEVICE_URI", j->inner, 1);
		signal(SIGTERM, SIG_DFL);
		execv(j->backend, av);
		fprintf(stderr, "ERROR: privd: cannot run %s: %s\n", j->backend, strerror(errno));
		_exit(CUPS_BACKEND_FAILED);
	}
	child = pid;
	if (cancelled)
		kill(pid, SIGTERM);
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	child = 0;
	if (w < 0)
		return CUPS_BACKEND_FAILED;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	say("DEBUG", "%s ended by signal %d", j->backend, WTERMSIG(st));
	return cancelled ? CUPS_BACKEND_CANCEL : CUPS_BACKEND_FAILED;
}

static int
check_config(const char *path)
{
	struct cupsconf c;
	char err[1024], *key = NULL;
	size_t i;

	if (cupsconf_load(&c, path, err, sizeof(err)) != 0) {
		fprintf(stderr, "privd-cups: %s\n", err);
		return 1;
	}
	if (keyfile_read(c.privd.key_file, &key, err, sizeof(err)) != 0) {
		fprintf(stderr, "privd-cups: %s\n", err);
		cupsconf_free(&c);
		return 1;
	}
	free(key);
	printf("%s: ok: privd at", path);
	for (i = 0; c.privd.urls[i]; i++)
		printf(" %s", c.privd.urls[i]);
	printf(", %zu queue%s configured, request ids cups:%s:QUEUE:JOB\n", c.nqueues,
	    c.nqueues == 1 ? "" : "s", c.host);
	cupsconf_free(&c);
	return 0;
}

/* Reads the settings and the key; -1 or an exit status. */
static int
setup(struct cupsconf *c, struct rest *r, char **key, struct job *j)
{
	const char *path = getenv("PRIVD_CUPS_CONFIG");
	char err[1024], h[40], q[40], id[16];

	if (path == NULL || *path == '\0')
		path = CUPSCONF_PATH;
	if (cupsconf_load(c, path, err, sizeof(err)) != 0) {
		/* the queue stops: nothing prints uncharged until this is fixed */
		say("ERROR", "%s", err);
		return CUPS_BACKEND_STOP;
	}
	if (keyfile_read(c->privd.key_file, key, err, sizeof(err)) != 0) {
		say("ERROR", "%s", err);
		return CUPS_BACKEND_STOP;
	}
	cupsconf_queue(c, j->queue, &j->q);
	j->ttl = c->hold_ttl;
	memset(r, 0, sizeof(*r));
	r->urls = c->privd.urls;
	r->key = *key;
	r->prog = "privd-cups";
	r->quiet = 1;
	r->timeout_ms = c->privd.timeout_ms > 0 ? c->privd.timeout_ms : 10000;
	id_part(h, sizeof(h), c->host);
	id_part(q, sizeof(q), j->queue);
	id_part(id, sizeof(id), j->id);
	snprintf(j->base, sizeof(j->base), "cups:%s:%s:%s", h, q, id);
	return -1;
}

int
main(int argc, char **argv)
{
	struct cupsconf c;
	struct rest r;
	struct job j;
	struct sigaction sa;
	cups_option_t *opts = NULL;
	const char *mode, *final;
	char *key = NULL;
	int nopts, rc, status, uncharged = 0;

	memset(&c, 0, sizeof(c));
	memset(&r, 0, sizeof(r));
	memset(&j, 0, sizeof(j));
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (argc == 1) {
		/* discovery (backend(7)): this scheme exists, it has no devices */
		puts("network privd \"Unknown\" \"privd: check and charge, then print "
		    "(privd:/ipp://HOST/ipp/print)\"");
		return CUPS_BACKEND_OK;
	}
	if (argc == 3 && strcmp(argv[1], "--check-config") == 0)
		return check_config(argv[2]);
	if (argc < 6 || argc > 7) {
		fprintf(stderr, "usage: %s job-id user title copies options [file]\n"
		    "       %s --check-config FILE\n", argv[0], argv[0]);
		return CUPS_BACKEND_FAILED;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	j.id = argv[1];
	j.user = argv[2];
	j.title = argv[3];
	j.copies = strtol(argv[4], NULL, 10);
	if (j.copies < 1)
		j.copies = 1;
	j.options = argv[5];
	j.file = argc == 7 ? argv[6] : NULL;
	j.queue = getenv("PRINTER");
	final = getenv("FINAL_CONTENT_TYPE");
	j.type = final && *final ? final : getenv("CONTENT_TYPE");
	if (j.type == NULL)
		j.type = "application/octet-stream";
	if (j.queue == NULL || *j.queue == '\0') {
		say("ERROR", "no PRINTER in the environment: run by cupsd only");
		return CUPS_BACKEND_FAILED;
	}
	if (inner_uri(&j, getenv("DEVICE_URI") ? getenv("DEVICE_URI") : argv[0]) != 0)
		return CUPS_BACKEND_STOP;
	nopts = cupsParseOptions(j.options, 0, &opts);
	mode = cupsGetOption("print-color-mode", nopts, opts);
	j.colour = mode && strcmp(mode, "color") == 0;
	j.pool = cupsGetOption("privd-pool", nopts, opts);
	/* the IPP standard's account, and PyKota's, name a pool too */
	if (j.pool == NULL || *j.pool == '\0')
		j.pool = cupsGetOption("job-account-id", nopts, opts);
	if (j.pool == NULL || *j.pool == '\0')
		j.pool = cupsGetOption("job-billing", nopts, opts);
	if (j.pool != NULL && *j.pool == '\0')
		j.pool = NULL;
	j.sides = cupsGetOption("sides", nopts, opts);
	if (j.sides == NULL || (strcmp(j.sides, "two-sided-long-edge") != 0 &&
	    strcmp(j.sides, "two-sided-short-edge") != 0))
		j.sides = "one-sided";
	j.media = cupsGetOption("media", nopts, opts);
	if (j.media == NULL || *j.media == '\0' || strlen(j.media) > 31)
		j.media = cupsGetOption("PageSize", nopts, opts);
	if (j.media != NULL && (*j.media == '\0' || strlen(j.media) > 31))
		j.media = NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if ((status = setup(&c, &r, &key, &j)) >= 0)
		goto done;
	j.quota = j.colour ? j.q.colour_pages : j.q.pages;

	status = allowed(&r, &j, j.q.access_privilege, j.q.access,
	    "%s may not print on %s");
	if (status < 0 && r.status != 0 && (status = card(&r, &j)) < 0 && j.priced)
		j.quota = j.card_quota;
	if (status < 0 && j.colour)
		status = allowed(&r, &j, j.q.colour, NULL, "%s may not print in colour on %s");
	if (status >= 0)
		goto done;
	if (r.status == 0)
		uncharged = 1;	/* unreachable: allow */
	if (j.file == NULL && spool_stdin(&j) != 0) {
		status = CUPS_BACKEND_RETRY;
		goto done;
	}
	if ((status = count(&j)) >= 0)
		goto done;
	if (j.priced && (status = classify(&j, c.colour_threshold)) >= 0)
		goto done;
	if (!uncharged && j.amount > 0) {
		if ((status = hold(&r, &j)) >= 0)
			goto done;
		uncharged = r.status == 0 || r.status >= 500;
	} else if (j.amount == 0)
		uncharged = 1;	/* nothing to charge */
	if (cancelled) {
		if (!uncharged)
			settle(&r, &j, 0);
		status = CUPS_BACKEND_CANCEL;
		goto done;
	}
	rc = run_backend(&j, argv, argc);
	/* a cancelled ipp backend exits 0 without having printed all of it */
	if (!uncharged)
		settle(&r, &j, rc == CUPS_BACKEND_OK && !cancelled);
	/* cupsd keeps the larger of this and the filters' own page lines */
	if (rc == CUPS_BACKEND_OK && !cancelled)
		fprintf(stderr, "PAGE: total %lld\n", (long long)j.pages * j.copies);
	status = rc;
done:
	if (j.spool[0])
		unlink(j.spool);
	cupsFreeOptions(nopts, opts);
	rest_free(&r);
	if (key) {
		explicit_bzero(key, strlen(key));
		free(key);
	}
	cupsconf_free(&c);
	curl_global_cleanup();
	return status;
}
