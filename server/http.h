/* http.h - the libmicrohttpd server: routing, limits, keys, JSON answers. */
#ifndef PRIVD_HTTP_H
#define PRIVD_HTTP_H

#include <stddef.h>

#include <jansson.h>
#include <microhttpd.h>

#include "config.h"
#include "err.h"
#include "login.h"

#define HTTP_MAX_PARTS 48	/* a pool's cell is up to 2 * 16 segments */

struct req {
	struct MHD_Connection *conn;
	const struct cfg *cfg;
	const char *method;
	const char *body;	/* NUL-terminated, len bytes */
	size_t len;
	const struct cfg_key *key;	/* NULL on open routes and for logins */
	const struct login *login;	/* a person by HTTP Basic, or NULL */
	const char *actor;	/* the key's name or the login's uid */
	char addr[64];		/* the client's address */
	char *part[HTTP_MAX_PARTS];	/* path segments */
	int nparts;
	char token_uid[65];	/* who signed in, for a web page token */
	int status;		/* set by the send functions */
	struct conn_ctx *defer;	/* set: the answer is kept for a resumed connection */
};

struct http_route {
	const char *method;
	const char *path;	/* '*' matches one segment */
	unsigned scope;		/* 0: no key needed */
	enum MHD_Result (*fn)(struct req *);
	const char *name;	/* in the metrics */
	int slow;		/* may take minutes: run beside the HTTP threads */
	int person;		/* what a person may do here (enum authz_person) */
};

enum { HTTP_SCOPE_METRICS = 0x100 };	/* read, unless metrics_public */

/* Serves the n routes of table (kept, not copied). */
int http_start(const struct cfg *c, const struct http_route *table, int n, struct err *e);
/* Stops taking connections, lets running admin writes stop and answer
 * (up to http.shutdown_grace), then stops. -1 when some were still
 * running: the process must exit without further cleanup. */
int http_stop(void);

/* Answer functions: each queues exactly one response and returns it. */
enum MHD_Result http_json(struct req *r, int status, json_t *body);	/* steals body */
enum MHD_Result http_error(struct req *r, int status, const char *code,
    const char *field, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
enum MHD_Result http_text(struct req *r, int status, const char *ctype, char *text);	/* steals text */
/* A file of the web page (steals data), with its security headers. */
enum MHD_Result http_file(struct req *r, int status, const char *ctype, char *data, size_t len);
enum MHD_Result http_redirect(struct req *r, const char *location);
/* Maps a struct err to its status and answers it. */
enum MHD_Result http_err(struct req *r, const struct err *e, const char *code);
const char *http_query(struct req *r, const char *name);
/* The client's address (r->addr), looked up on first use: logins are
 * limited per address, and audit lines name it. */
const char *http_addr(struct req *r);
/* Writes stored over path part i when it is the same word in another case
 * (an account's uid as the directory spells it), so the answer and every
 * write use the stored spelling. */
void http_canon_part(struct req *r, int i, const char *stored);
/* The bind for an admin write: the login's DN and password, or NULLs. */
const char *http_who(const struct req *r);
const char *http_password(const struct req *r);

#endif
