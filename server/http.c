/* http.c - libmicrohttpd glue: a route table, body limits, keys, error answers. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "authz.h"
#include "chgwrite.h"
#include "conns.h"
#include "framing.h"
#include "cfglive.h"
#include "http.h"
#include "log.h"
#include "reqpath.h"
#include "rfile.h"
#include "metrics.h"
#include "strmap.h"
#include "token.h"
#include "tokenlive.h"
#include "utf8.h"
#include "writers.h"

static const struct http_route *routes;
static int nroutes;
#define ROUTE_NONE nroutes	/* unknown routes, for metrics */

static const char *route_names[METRICS_ROUTES_MAX];


struct conn_ctx {
	struct timespec start;
	/* a slow route's answer, made by its own thread while the connection
	 * is suspended, queued when libmicrohttpd resumes it */
	int deferred;		/* 1 running, 2 answered */
	int dstatus;
	const char *dctype;
	char *dtext;
	char *body;
	size_t len, cap;
	int too_big;
	int route;
	int status;
	char method[8];
	char actor[65];
	char addr[64];
	size_t uri_len;		/* the request line's target as sent (on_uri) */
	int begun;		/* on_request has seen its headers */
};

static struct MHD_Daemon *daemon_;
static const struct cfg *cfg;

/* the body of an answer that could not be made (no memory, or text jansson
 * would not take): every 5xx has a JSON body */
#define INTERNAL_BODY "{\"error\":\"internal\",\"message\":\"the answer could not be made\"}\n"

enum MHD_Result
http_text(struct req *r, int status, const char *ctype, char *text)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (r->defer != NULL) {
		/* kept for the resumed connection: only its own thread may queue it;
		 * an answer that could not be made is a 500 that says so */
		if (text == NULL) {
			text = strdup(INTERNAL_BODY);
			status = 500;
			ctype = "application/json";
		}
		r->defer->dstatus = status;
		r->defer->dctype = ctype;
		r->defer->dtext = text;
		r->status = r->defer->dstatus;
		return MHD_YES;
	}
	if (text == NULL) {
		static const char internal[] = INTERNAL_BODY;

		status = 500;
		resp = MHD_create_response_from_buffer(sizeof(internal) - 1, (void *)internal,
		    MHD_RESPMEM_PERSISTENT);
		ctype = "application/json";
	} else
		resp = MHD_create_response_from_buffer(strlen(text), text,
		    MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (status == 401)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		    "Bearer realm=\"privd\"");
	r->status = status;
	ret = MHD_queue_response(r->conn, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result
http_file(struct req *r, int status, const char *ctype, char *data, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if ((resp = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE)) == NULL) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	/* the page's own files only: no inline script or style, no frames */
	MHD_add_response_header(resp, "Content-Security-Policy", "default-src 'none'; "
	    "script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
	    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	r->status = status;
	ret = MHD_queue_response(r->conn, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result
http_redirect(struct req *r, const char *location)
{
	static const char body[] = "";
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if ((resp = MHD_create_response_from_buffer(0, (void *)body, MHD_RESPMEM_PERSISTENT)) == NULL)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
	r->status = 301;
	ret = MHD_queue_response(r->conn, 301, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result
http_json(struct req *r, int status, json_t *body)
{
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	size_t n;

	json_decref(body);
	if (text != NULL) {
		/* end with a newline: friendlier for curl and shells */
		n = strlen(text);
		char *t2 = realloc(text, n + 2);

		if (t2 != NULL) {
			text = t2;
			text[n] = '\n';
			text[n + 1] = '\0';
		}
	}
	return http_text(r, status, "application/json", text);
}

enum MHD_Result
http_error(struct req *r, int status, const char *code, const char *field,
    const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	json_t *o;

	char fld[128];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* messages echo what the client sent, cut at msg's size: whole
	 * characters, no control bytes */
	utf8_clean(msg);
	o = json_pack("{s:s, s:s}", "error", code, "message", msg);
	if (o != NULL && field != NULL && *field) {
		snprintf(fld, sizeof(fld), "%s", field);
		utf8_clean(fld);
		json_object_set_new(o, "field", json_string(fld));
	}
	return http_json(r, status, o);
}

enum MHD_Result
http_err(struct req *r, const struct err *e, const char *code)
{
	/* each code's status, error name (NULL: the caller's) and whether it names a field */
	static const struct {
		int status;
		const char *error;
		int field;
	} as[] = {
		[ERR_NONE] = { 500, "internal", 0 },
		[ERR_INVALID] = { 400, NULL, 1 },
		[ERR_NOT_FOUND] = { 404, "not_found", 1 },
		[ERR_CONFLICT] = { 409, "conflict", 1 },
		[ERR_UNAVAILABLE] = { 503, "ldap_unavailable", 0 },
		[ERR_FORBIDDEN] = { 403, "forbidden", 1 },
		[ERR_STOPPING] = { 503, "stopping", 1 },
		[ERR_SCHEMA] = { 503, "directory_schema", 0 },
		[ERR_INTERNAL] = { 500, "internal", 0 },
	};

	if (as[e->code].status == 500)
		log_warn("internal error: %s", e->msg);
	return http_error(r, as[e->code].status, as[e->code].error ? as[e->code].error : code,
	    as[e->code].field ? e->key : NULL, "%s", e->msg);
}

const char *
http_who(const struct req *r)
{
	return r->login ? r->login->dn : NULL;
}

const char *
http_password(const struct req *r)
{
	return r->login ? r->login->password : NULL;
}

const char *
http_addr(struct req *r)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn,
	    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (r->addr[0] != '\0')
		return r->addr;
	snprintf(r->addr, sizeof(r->addr), "?");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, r->addr,
		    sizeof(r->addr));
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, r->addr,
		    sizeof(r->addr));
	return r->addr;
}

/* A person by HTTP Basic; answers the refusal itself. */
static int
basic(struct req *r, const char *h, struct login *l, enum MHD_Result *ret)
{
	struct err e;

	memset(&e, 0, sizeof(e));
	if (login_basic(r->cfg, h, r->addr, l, &e) == 0) {
		r->actor = l->uid;
		return 0;
	}
	switch (e.code) {
	case ERR_CONFLICT:
		*ret = http_error(r, 429, "too_many_logins", NULL, "%s", e.msg);
		break;
	case ERR_UNAVAILABLE:
		*ret = http_error(r, 503, "ldap_unavailable", NULL, "%s", e.msg);
		break;
	default:
		*ret = http_error(r, 401, "unauthorized", NULL, "%s", e.msg);
	}
	return -1;
}

const char *
http_query(struct req *r, const char *name)
{
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

/* jobs resume their connections only while the daemon runs; njobs counts
 * the deferred requests not yet answered, which a stop waits for */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t jobs_done = PTHREAD_COND_INITIALIZER;
static int stopping, njobs;

struct job {
	struct writers_task task;	/* first: the pool hands it back as this */
	struct req r;
	char path[2048];	/* the segments r.part points into */
	enum MHD_Result (*fn)(struct req *);
};

static void
job_run(struct writers_task *t)
{
	struct job *j = (struct job *)t;
	struct MHD_Connection *conn = j->r.conn;
	struct conn_ctx *cx = j->r.defer;

	j->fn(&j->r);
	if (j->r.login != NULL) {
		explicit_bzero((struct login *)j->r.login, sizeof(*j->r.login));
		free((struct login *)j->r.login);
	}
	free(j);
	pthread_mutex_lock(&jobs_lock);
	cx->deferred = 2;
	if (!stopping)
		MHD_resume_connection(conn);
	pthread_mutex_unlock(&jobs_lock);
}

static void *
job_thread(void *arg)
{
	job_run(arg);
	return NULL;
}

/*
 * The counter a draw on /v1/{accounts,pools}/ID/quotas/Q/ (a charge, a
 * refund, a hold and its end) takes the lock of first, for the writer pool
 * (writers.h): such requests queue behind each other on one thread, as they
 * would on that lock. 0 for any other route: a top-up or a reversal writes
 * the paid wallet, whose lock a split charge may wait for, not hold.
 */
static unsigned long
write_key(const struct req *r)
{
	char counter[2048];
	unsigned long h;

	if (r->nparts < 6 || strcmp(r->part[3], "quotas") != 0 ||
	    (strcmp(r->part[5], "charges") != 0 && strcmp(r->part[5], "refunds") != 0 &&
	    strcmp(r->part[5], "holds") != 0))
		return 0;
	/* the segments are pieces of one path shorter than counter */
	snprintf(counter, sizeof(counter), "%s/%s/%s", r->part[1], r->part[2], r->part[4]);
	h = (unsigned long)strmap_hash(counter);
	return h != 0 ? h : 1;
}

/*
 * Runs a route beside the HTTP threads while libmicrohttpd keeps the
 * connection suspended, so those threads go on serving reads: a write on
 * the writer pool (it waits for slapd), a slow route (an import can take
 * minutes) on a thread of its own. The job takes r's login.
 */
static enum MHD_Result
defer(struct req *r, const char *path, struct conn_ctx *cx, enum MHD_Result (*fn)(struct req *),
    int own_thread)
{
	struct job *j = calloc(1, sizeof(*j));
	pthread_attr_t at;
	pthread_t t;
	int i, rc;

	if (j == NULL)
		return http_error(r, 500, "internal", NULL, "out of memory");
	j->task.run = job_run;
	j->task.key = write_key(r);
	j->r = *r;
	j->fn = fn;
	memcpy(j->path, path, sizeof(j->path));
	for (i = 0; i < r->nparts; i++)
		j->r.part[i] = j->path + (r->part[i] - path);
	j->r.defer = cx;
	cx->deferred = 1;
	/* what the audit line of a refusal needs, before r goes */
	snprintf(cx->method, sizeof(cx->method), "%s", r->method);
	snprintf(cx->actor, sizeof(cx->actor), "%s", r->actor ? r->actor : "-");
	snprintf(cx->addr, sizeof(cx->addr), "%s", http_addr(r));
	MHD_suspend_connection(r->conn);
	pthread_mutex_lock(&jobs_lock);
	njobs++;
	pthread_mutex_unlock(&jobs_lock);
	if (own_thread) {
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&t, &at, job_thread, j);
		pthread_attr_destroy(&at);
	} else
		rc = writers_submit(&j->task);
	if (rc != 0) {
		pthread_mutex_lock(&jobs_lock);
		njobs--;
		pthread_mutex_unlock(&jobs_lock);
		MHD_resume_connection(r->conn);
		cx->deferred = 0;
		free(j);
		return http_error(r, 503, "busy", NULL, "cannot start a thread for this request");
	}
	r->login = NULL;	/* the job's now */
	return MHD_YES;
}

/* Reads run here; writes and slow routes beside (defer). */
static enum MHD_Result
run_route(struct req *r, const char *path, struct conn_ctx *cx, int i)
{
	if (routes[i].slow)
		return defer(r, path, cx, routes[i].fn, 1);
	if (strcmp(routes[i].method, "GET") != 0)
		return defer(r, path, cx, routes[i].fn, 0);
	return routes[i].fn(r);
}

/*
 * A web page's sign-in token (token.h) in place of a key: who signed in,
 * and whether they administer now, into w. 0 when it is a valid token, -1
 * with *ret the answer, 1 when h is no token at all (a key was meant).
 */
static int
signed_in(struct req *r, const char *h, struct authz_who *w, enum MHD_Result *ret)
{
	struct token t;
	char why[256];

	if (h == NULL || strncasecmp(h, "Bearer pt1~", 11) != 0)
		return 1;
	if (token_check(r->cfg, h + 7, time(NULL), &t) != 0) {
		*ret = http_error(r, 401, "token_expired", NULL,
		    "the sign-in has expired or is not valid: sign in again");
		return -1;
	}
	/* a token says what was true at sign-in: whether its person still has
	 * an account, a membership and the password they signed in with, and
	 * still administers, is what is true now */
	if (tokenlive_check(r->cfg, t.uid, t.issued, why, sizeof(why)) != 0) {
		*ret = http_error(r, 401, "token_expired", NULL, "%s", why);
		return -1;
	}
	snprintf(r->token_uid, sizeof(r->token_uid), "%s", t.uid);
	r->actor = r->token_uid;
	w->how = AUTHZ_TOKEN;
	w->uid = r->token_uid;
	w->admin = t.admin && token_admin(r->cfg, t.uid);
	return 0;
}

/*
 * Who is asking, by key, HTTP Basic or sign-in token, into w; then the one
 * rule (authz.h) decides. 0 when the route may run, -1 with *ret the answer.
 */
static int
authorise(struct req *r, const struct http_route *rt, enum MHD_Result *ret)
{
	const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_AUTHORIZATION);
	struct authz_who w = { AUTHZ_KEY, NULL, NULL, 0 };
	struct authz_route ar;
	char why[256];
	int st;

	http_addr(r);	/* for the audit lines and the sign-in limits */
	if (h != NULL && strncasecmp(h, "Basic ", 6) == 0) {
		struct login *l = malloc(sizeof(*l));

		if (l == NULL) {
			*ret = http_error(r, 500, "internal", NULL, "out of memory");
			return -1;
		}
		if (basic(r, h, l, ret) != 0) {
			explicit_bzero(l, sizeof(*l));
			free(l);
			return -1;
		}
		/* freed, wiped, by on_request once the answer is queued */
		r->login = l;
		w.how = AUTHZ_BASIC;
		w.uid = l->uid;
		w.admin = token_admin(r->cfg, l->uid);
	} else if ((r->key = auth_bearer(r->cfg, h)) != NULL) {
		w.key = r->key;
		r->actor = r->key->name;
	} else if ((st = signed_in(r, h, &w, ret)) != 0) {
		if (st > 0)
			*ret = http_error(r, 401, "unauthorized", NULL, h ? "the API key is not valid" :
			    "an API key is required (Authorization: Bearer KEY)");
		return -1;
	}
	ar.method = rt->method;
	ar.name = rt->name;
	ar.scope = rt->scope == HTTP_SCOPE_METRICS ? SCOPE_READ : rt->scope;
	ar.person = (enum authz_person)rt->person;
	ar.account = r->nparts >= 3 && strcmp(r->part[0], "v1") == 0 &&
	    strcmp(r->part[1], "accounts") == 0 ? r->part[2] : NULL;
	if (authz_allow(&w, &ar, why, sizeof(why)) == 0)
		return 0;
	*ret = http_error(r, 403, "forbidden", NULL, "%s", why);
	return -1;
}

static enum MHD_Result
dispatch(struct req *r, const char *url, struct conn_ctx *cx)
{
	char path[2048];
	char *p;
	int i, path_match = -1;

	if (strlen(url) >= sizeof(path))
		return http_error(r, 414, "uri_too_long", NULL, "the URL is longer than %zu bytes",
		    sizeof(path) - 1);
	if (strcmp(url, "/ui") == 0)
		return http_redirect(r, "/ui/");
	/* split the path into NUL-terminated segments */
	memcpy(path, url, strlen(url) + 1);
	r->nparts = 0;
	if (path[0] != '/')
		return http_error(r, 404, "not_found", NULL, "no such route");
	for (p = path + 1;;) {
		char *slash = strchr(p, '/');

		if (r->nparts == HTTP_MAX_PARTS)
			return http_error(r, 404, "not_found", NULL, "no such route");
		r->part[r->nparts++] = p;
		if (slash == NULL)
			break;
		*slash = '\0';
		p = slash + 1;
	}
	reqpath_join_cell(r->part, &r->nparts);
	if (r->nparts == 2 && strcmp(r->part[0], "ui") == 0 && r->part[1][0] == '\0')
		r->nparts = 1;	/* /ui/: the page itself */
	for (i = 0; i < nroutes; i++) {
		if (!reqpath_match(routes[i].path, r->part, r->nparts))
			continue;
		path_match = i;
		if (strcmp(routes[i].method, r->method) == 0)
			break;
	}
	if (i == nroutes) {
		if (path_match >= 0) {
			cx->route = path_match;
			return http_error(r, 405, "method_not_allowed", NULL,
			    "%s is not allowed here (use %s)", r->method, routes[path_match].method);
		}
		return http_error(r, 404, "not_found", NULL, "no such route: %.200s", url);
	}
	cx->route = i;
	if (routes[i].scope != 0 && !(routes[i].scope == HTTP_SCOPE_METRICS && r->cfg->metrics_public)) {
		enum MHD_Result ret;

		if (authorise(r, &routes[i], &ret) != 0)
			return ret;
	}
	return run_route(r, path, cx, i);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
	struct conn_ctx *cx = *con_cls;
	struct req r;
	enum MHD_Result ret;
	int deferred;

	(void)cls;
	memset(&r, 0, sizeof(r));
	r.conn = conn;
	/* the configuration in force now: a reload changes the next request's */
	r.cfg = cfglive_get();
	r.method = method;
	if (cx == NULL || !cx->begun) {
		const char *cl, *why;

		if (cx == NULL && (cx = calloc(1, sizeof(*cx))) == NULL)
			return MHD_NO;
		clock_gettime(CLOCK_MONOTONIC, &cx->start);
		cx->route = ROUTE_NONE;
		cx->begun = 1;
		*con_cls = cx;
		if ((why = framing_ambiguous(conn, cx->uri_len ? strlen(method) + 1 + cx->uri_len +
		    1 + strlen(version) + 2 : 0)) != NULL) {
			/* answered before the body is read: MHD then closes */
			conns_busy(conn);
			ret = http_error(&r, 400, "bad_framing", NULL,
			    "the request has %s: it cannot be read one way only", why);
			cx->status = r.status;
			snprintf(cx->addr, sizeof(cx->addr), "%s", http_addr(&r));
			return ret;
		}
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
		    MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl != NULL && strtoull(cl, NULL, 10) > r.cfg->max_body) {
			/* answer before reading the body; MHD then closes */
			conns_busy(conn);
			ret = http_error(&r, 413, "body_too_large", NULL,
			    "request bodies are limited to %zu bytes", r.cfg->max_body);
			cx->status = r.status;
			return ret;
		}
		return MHD_YES;
	}
	pthread_mutex_lock(&jobs_lock);
	deferred = cx->deferred;
	pthread_mutex_unlock(&jobs_lock);
	if (deferred == 2) {
		/* resumed: the slow route's thread has made the answer */
		struct MHD_Response *resp = MHD_create_response_from_buffer(
		    cx->dtext ? strlen(cx->dtext) : 0, cx->dtext, MHD_RESPMEM_MUST_FREE);

		cx->deferred = 3;
		cx->status = cx->dstatus;
		cx->dtext = NULL;
		if (resp == NULL)
			return MHD_NO;
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
		    cx->dctype ? cx->dctype : "application/json");
		MHD_add_response_header(resp, "Cache-Control", "no-store");
		if (cx->dstatus == 401)
			MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
			    "Bearer realm=\"privd\"");
		ret = MHD_queue_response(conn, (unsigned)cx->dstatus, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	if (deferred)
		return MHD_YES;
	if (*upload_data_size > 0) {
		size_t n = *upload_data_size;

		*upload_data_size = 0;
		if (cx->too_big || cx->len + n > r.cfg->max_body) {
			cx->too_big = 1;
			return MHD_YES;
		}
		if (cx->len + n + 1 > cx->cap) {
			size_t nc = (cx->len + n + 1) * 2;
			char *nb;

			if (nc > r.cfg->max_body + 1)
				nc = r.cfg->max_body + 1;
			if ((nb = realloc(cx->body, nc)) == NULL)
				return MHD_NO;
			cx->body = nb;
			cx->cap = nc;
		}
		memcpy(cx->body + cx->len, upload_data, n);
		cx->len += n;
		cx->body[cx->len] = '\0';
		return MHD_YES;
	}
	conns_busy(conn);
	if (cx->too_big)
		ret = http_error(&r, 413, "body_too_large", NULL,
		    "request bodies are limited to %zu bytes", r.cfg->max_body);
	else {
		r.body = cx->body ? cx->body : "";
		r.len = cx->len;
		ret = dispatch(&r, url, cx);
	}
	cx->status = r.status;
	pthread_mutex_lock(&jobs_lock);
	if (cx->deferred)
		cx->status = 200;	/* for now; the audit below waits for the answer */
	pthread_mutex_unlock(&jobs_lock);
	if (r.status >= 400) {
		/* what the audit line of a refusal needs, once the request is done */
		snprintf(cx->method, sizeof(cx->method), "%s", method);
		snprintf(cx->actor, sizeof(cx->actor), "%s", r.actor ? r.actor : "-");
		snprintf(cx->addr, sizeof(cx->addr), "%s", http_addr(&r));
	}
	if (r.login != NULL) {
		/* no password outlives its request */
		explicit_bzero((struct login *)r.login, sizeof(*r.login));
		free((struct login *)r.login);
	}
	return ret;
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	struct conn_ctx *cx = *con_cls;
	struct timespec now;

	(void)cls;
	(void)toe;
	conns_idle(conn);
	if (cx == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the audit line of every refused request: never a key or password */
	if (cx->status >= 400)
		log_info("refused: %s %s from %s by %s: %d", cx->method[0] ? cx->method : "?",
		    route_names[cx->route], cx->addr[0] ? cx->addr : "?", cx->actor[0] ? cx->actor : "-",
		    cx->status);
	metrics_observe(cx->route, cx->status, (now.tv_sec - cx->start.tv_sec) +
	    (now.tv_nsec - cx->start.tv_nsec) / 1e9);
	if (cx->deferred) {
		pthread_mutex_lock(&jobs_lock);
		njobs--;
		pthread_cond_broadcast(&jobs_done);
		pthread_mutex_unlock(&jobs_lock);
	}
	free(cx->dtext);
	free(cx->body);
	free(cx);
	*con_cls = NULL;
}

/*
 * The request line has been read: the connection's state (conns.c), and
 * the context of the request begun, knowing its target's length as sent
 * (the framing check counts the bytes of the headers).
 */
static void *
on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct conn_ctx *cx = calloc(1, sizeof(*cx));

	conns_request_line(cls, uri, conn);
	if (cx != NULL)
		cx->uri_len = strlen(uri);
	return cx;
}

/*
 * libmicrohttpd's unescaping, except that a URL holding %00 stays as it
 * is: a NUL would cut the path short and route it somewhere else.
 */
static size_t
on_unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	if (strstr(s, "%00") != NULL)
		return strlen(s);
	return MHD_http_unescape(s);
}

static void
on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	/* libmicrohttpd speaks of single connections (a client gone, a
	 * deadline passed): at a flood's rate a warning each would fill the
	 * disk; conns.c counts them in /metrics instead */
	log_debug("http: %s", msg);
}

/* A PEM file into memory (NUL-terminated), for libmicrohttpd's GnuTLS. */
static char *
read_pem(const char *path)
{
	char *buf, why[200];
	size_t len;

	if (rfile_read(path, 65536, &buf, &len, why, sizeof(why)) != 0)
		return NULL;
	if (len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Room for every connection the configuration allows, the LDAP
 * connections and files beside them: a soft limit of 1024 would refuse
 * clients long before http.connection_limit.
 */
static void
raise_fd_limit(const struct cfg *c)
{
	rlim_t want = (rlim_t)c->conn_limit * 2 + 64 + 256;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < want)
		log_warn("open files are limited to %lu: fewer than http.connection_limit (%d) "
		    "connections fit (raise LimitNOFILE)", (unsigned long)rl.rlim_cur, c->conn_limit);
}

/*
 * Every HTTP client speaks first, so the kernel is told to hand privd a
 * connection only once its first bytes have come: connections opened and
 * left silent wait in the kernel, not in the accept queue ahead of a
 * client with a request (an idle flood over http.connection_limit would
 * otherwise put each new client behind its surplus).
 */
static void
defer_accept(void)
{
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_LISTEN_FD);
	int secs = 5;

	if (di == NULL || setsockopt(di->listen_fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs,
	    sizeof(secs)) != 0)
		log_warn("cannot defer accepting until a request arrives: silent connections "
		    "take places in the accept queue");
}

int
http_start(const struct cfg *c, const struct http_route *table, int n, struct err *e)
{
	struct sockaddr_storage ss;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
	    MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
	char *cert = NULL, *key = NULL;
	int i;

	cfg = c;
	routes = table;
	nroutes = n;
	if (n + 1 > METRICS_ROUTES_MAX)
		return err_set(e, ERR_INTERNAL, 0, NULL, "%d routes: raise METRICS_ROUTES_MAX", n);
	for (i = 0; i < nroutes; i++)
		route_names[i] = routes[i].name;
	route_names[nroutes] = "unknown";
	metrics_routes(route_names, nroutes + 1);
	memset(&ss, 0, sizeof(ss));
	if (strchr(c->listen_host, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)c->listen_port);
		if (inet_pton(AF_INET6, c->listen_host, &s6->sin6_addr) != 1)
			return err_set(e, ERR_INVALID, 0, "http.listen", "bad IPv6 address %s", c->listen_host);
		flags |= MHD_USE_IPv6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)c->listen_port);
		if (inet_pton(AF_INET, c->listen_host, &s4->sin_addr) != 1)
			return err_set(e, ERR_INVALID, 0, "http.listen",
			    "http.listen: '%s' is not an IP address", c->listen_host);
	}
	if (c->tls_cert != NULL) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
			return err_set(e, ERR_INVALID, 0, "http.tls_cert",
			    "this libmicrohttpd has no TLS support");
		if ((cert = read_pem(c->tls_cert)) == NULL || (key = read_pem(c->tls_key)) == NULL) {
			free(cert);
			return err_set(e, ERR_INVALID, 0, "http.tls_cert", "cannot read %s or %s",
			    c->tls_cert, c->tls_key);
		}
		flags |= MHD_USE_TLS;
	}
	raise_fd_limit(c);
	if (writers_start(c->writers) != 0) {
		free(cert);
		free(key);
		return err_set(e, ERR_INTERNAL, 0, "http.writers", "cannot start %d writer threads",
		    c->writers);
	}
	if (conns_start(c) != 0) {
		writers_stop();
		free(cert);
		free(key);
		return err_set(e, ERR_INTERNAL, 0, NULL, "cannot start the connection thread");
	}
	/* libmicrohttpd's own limit sits well above conns.c's, which decides:
	 * libmicrohttpd splits its limit between its threads, and counts the
	 * connections conns.c has closed until it notices */
	daemon_ = MHD_start_daemon(flags, 0, conns_accept, NULL, on_request, NULL,
	    MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, conns_notify, NULL,
	    MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)c->threads,
	    /* a last resort for a client that stops reading an answer: the
	     * deadlines before it are conns.c's */
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(c->conn_timeout_s > c->request_timeout_s ?
	    c->conn_timeout_s : c->request_timeout_s) + 5,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)c->conn_limit * 2 + 64,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16 * 1024,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
	    MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, NULL,
	    cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert,
	    MHD_OPTION_HTTPS_MEM_KEY, key,
	    MHD_OPTION_END);
	if (key != NULL)
		explicit_bzero(key, strlen(key));
	free(cert);
	free(key);
	if (daemon_ == NULL) {
		conns_stop();
		writers_stop();
		return err_set(e, ERR_UNAVAILABLE, 0, "http.listen",
		    "cannot listen on %s:%d (in use, or not allowed)", c->listen_host, c->listen_port);
	}
	defer_accept();
	return 0;
}

int
http_stop(void)
{
	struct timespec until;
	MHD_socket fd;
	int left;

	if (daemon_ == NULL)
		return 0;
	/* no new connections; those open finish what they asked */
	if ((fd = MHD_quiesce_daemon(daemon_)) != MHD_INVALID_SOCKET)
		close(fd);
	/* running admin writes stop before their next write and answer 503
	 * "run it again"; their answers go out before the daemon stops */
	chgw_stop();
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += cfg->shutdown_grace_s;
	pthread_mutex_lock(&jobs_lock);
	while (njobs > 0 && pthread_cond_timedwait(&jobs_done, &jobs_lock, &until) == 0)
		;
	left = njobs;
	stopping = 1;
	pthread_mutex_unlock(&jobs_lock);
	if (left > 0) {
		/* libmicrohttpd aborts when stopped with a suspended connection */
		log_warn("%d admin write%s still running after http.shutdown_grace (%d s): "
		    "left open for the next run to finish", left, left == 1 ? " is" : "s are",
		    cfg->shutdown_grace_s);
		return -1;
	}
	MHD_stop_daemon(daemon_);
	daemon_ = NULL;
	conns_stop();
	writers_stop();
	return 0;
}

void
http_canon_part(struct req *r, int i, const char *stored)
{
	size_t n = strlen(stored);

	if (i < r->nparts && strlen(r->part[i]) == n && strcasecmp(r->part[i], stored) == 0)
		memcpy(r->part[i], stored, n);
}
