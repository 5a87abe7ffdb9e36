/*
 * rest.h - the client side of privd's REST API, shared by privctl, the
 * CUPS backend and the PAM module: libcurl requests, JSON answers, exit codes.
 */
#ifndef PRIVCTL_REST_H
#define PRIVCTL_REST_H

#include <stddef.h>

#include <jansson.h>

/* Exit codes a shell script can rely on. */
#define EXIT_OK		0
#define EXIT_REFUSED	1	/* refused, not found, conflict */
#define EXIT_USAGE	2
#define EXIT_DOWN	3	/* privd unreachable, or it cannot reach LDAP */

struct rest {
	const char *url;	/* http://host:port, no trailing slash */
	char *const *urls;	/* or several, tried in order (NULL-terminated);
				   url is then the one that answered last */
	const char *key;	/* API key, or NULL */
	const char *user;	/* HTTP Basic "uid:password", or NULL */
	const char *prog;	/* names the program in messages ("privctl") */
	int quiet;		/* messages only into error, not onto stderr */
	int no_timeout;		/* wait as long as the answer takes (imports) */
	long timeout_ms;	/* a whole request at most (0: 60 s) */
	long status;		/* of the last request */
	char *body;		/* of the last request, malloc'd */
	size_t len;
	char error[256];	/* why no answer came */
};

/*
 * One request (body may be NULL); path is appended to url (to each of urls
 * in turn until one answers). 0 when an answer came (any status),
 * EXIT_DOWN when none did (message in error, and on stderr unless quiet).
 */
int rest_call(struct rest *r, const char *method, const char *path,
    const char *ctype, const char *body, size_t len);
/* The last answer as JSON (a new reference), or NULL. */
json_t *rest_json(const struct rest *r);
/* For a status >= 400: prints "PROG: WHAT: CODE: message (field)" and
 * returns the exit code for it. 0 for a success. */
int rest_fail(const struct rest *r, const char *what);
/* An URL-escaped copy of s (free with free). */
char *rest_escape(const char *s);
void rest_free(struct rest *r);

#endif
