/* rest.c - libcurl requests and error answers for privd's clients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "rest.h"

static size_t
on_data(char *ptr, size_t size, size_t n, void *arg)
{
	struct rest *r = arg;
	char *np = realloc(r->body, r->len + size * n + 1);

	if (np == NULL)
		return 0;
	r->body = np;
	memcpy(r->body + r->len, ptr, size * n);
	r->len += size * n;
	r->body[r->len] = '\0';
	return size * n;
}

static const char *
prog(const struct rest *r)
{
	return r->prog ? r->prog : "privctl";
}

static int
call_one(struct rest *r, const char *method, const char *path,
    const char *ctype, const char *body, size_t len)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char *url = NULL, *auth = NULL, *ct = NULL;
	CURLcode rc = CURLE_OUT_OF_MEMORY;

	free(r->body);
	r->body = NULL;
	r->len = 0;
	r->status = 0;
	if (c == NULL || asprintf(&url, "%s%s", r->url, path) < 0) {
		url = NULL;
		goto done;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	/* bulk imports take as long as they take; other requests a minute at most */
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r->no_timeout ? 0L :
	    r->timeout_ms > 0 ? r->timeout_ms : 60000L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
	    r->timeout_ms > 0 && r->timeout_ms < 5000 ? r->timeout_ms : 5000L);
	/* no signals: the PAM module runs inside other programs' processes */
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, prog(r));
	if (r->user != NULL) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, r->user);
	} else if (r->key != NULL) {
		if (asprintf(&auth, "Authorization: Bearer %s", r->key) < 0) {
			auth = NULL;
			goto done;
		}
		h = curl_slist_append(h, auth);
	}
	if (body != NULL) {
		if (asprintf(&ct, "Content-Type: %s", ctype ? ctype : "application/json") < 0) {
			ct = NULL;
			goto done;
		}
		h = curl_slist_append(h, ct);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
done:
	if (rc != CURLE_OK)
		snprintf(r->error, sizeof(r->error), "cannot reach privd at %s: %s", r->url,
		    curl_easy_strerror(rc));
	curl_slist_free_all(h);
	if (c)
		curl_easy_cleanup(c);
	free(url);
	free(auth);
	free(ct);
	return rc == CURLE_OK ? 0 : EXIT_DOWN;
}

int
rest_call(struct rest *r, const char *method, const char *path,
    const char *ctype, const char *body, size_t len)
{
	size_t i;
	int rc = EXIT_DOWN;

	r->error[0] = '\0';
	if (r->urls == NULL)
		rc = call_one(r, method, path, ctype, body, len);
	for (i = 0; r->urls && r->urls[i] && rc != 0; i++) {
		r->url = r->urls[i];
		rc = call_one(r, method, path, ctype, body, len);
	}
	if (rc != 0 && !r->error[0])
		snprintf(r->error, sizeof(r->error), "no privd URL is configured");
	if (rc != 0 && !r->quiet)
		fprintf(stderr, "%s: %s\n", prog(r), r->error);
	return rc;
}

json_t *
rest_json(const struct rest *r)
{
	return r->body ? json_loadb(r->body, r->len, 0, NULL) : NULL;
}

int
rest_fail(const struct rest *r, const char *what)
{
	json_t *j;
	const char *code, *msg, *field;

	if (r->status < 400)
		return 0;
	j = rest_json(r);
	code = json_string_value(json_object_get(j, "error"));
	msg = json_string_value(json_object_get(j, "message"));
	field = json_string_value(json_object_get(j, "field"));
	fprintf(stderr, "%s: %s: %s: %s%s%s%s\n", prog(r), what, code ? code : "error",
	    msg ? msg : (r->body && *r->body ? r->body : "no message"),
	    field ? " (field " : "", field ? field : "", field ? ")" : "");
	/* down: privd, or the directory behind it, cannot be reached; a
	 * directory without privd's schema needs an administrator, not a retry */
	if ((r->status == 502 || r->status == 503 || r->status == 504) &&
	    !(code && strcmp(code, "directory_schema") == 0)) {
		json_decref(j);
		return EXIT_DOWN;
	}
	json_decref(j);
	return EXIT_REFUSED;
}

char *
rest_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0), *out = e ? strdup(e) : NULL;

	curl_free(e);
	return out;
}

void
rest_free(struct rest *r)
{
	free(r->body);
	r->body = NULL;
}
