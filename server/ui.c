/*
 * ui.c - the web page: plain files from ui.dir (no build step, nothing
 * fetched from elsewhere), and the sign-in that turns a directory password
 * into a short-lived token, so the page sends the password once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "body.h"
#include "log.h"
#include "login.h"
#include "token.h"
#include "rfile.h"
#include "snapshot.h"
#include "tokenlive.h"
#include "ui.h"

#define UI_FILE_MAX (1 << 20)

static const struct {
	const char *ext, *type;
} types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
};

/* A file name of the page: one segment of [a-z0-9._-], not starting with a dot. */
static const char *
type_of(const char *name)
{
	const char *p, *dot = strrchr(name, '.');
	size_t i;

	if (*name == '\0' || *name == '.' || dot == NULL)
		return NULL;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' ||
		    *p == '_' || *p == '-'))
			return NULL;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return NULL;
}

enum MHD_Result
ui_file(struct req *r)
{
	const char *name = r->nparts > 1 ? r->part[1] : "", *type;
	char path[4096], why[200];
	size_t len = 0;
	char *data;

	if (r->cfg->ui_dir == NULL)
		return http_error(r, 404, "not_found", NULL, "the web page is off (no ui section "
		    "in %s)", r->cfg->path);
	if (r->nparts == 1 || *name == '\0')
		name = "index.html";
	if ((type = type_of(name)) == NULL)
		return http_error(r, 404, "not_found", NULL, "no such file");
	snprintf(path, sizeof(path), "%s/%s", r->cfg->ui_dir, name);
	if (rfile_read(path, UI_FILE_MAX, &data, &len, why, sizeof(why)) != 0) {
		if (errno != ENOENT)
			log_warn("ui: %s: %s", path, why);
		return http_error(r, 404, "not_found", NULL, "no such file");
	}
	return http_file(r, 200, type, data, len);
}

enum MHD_Result
ui_token(struct req *r)
{
	static const char *const allowed[] = { "uid", "password", NULL };
	const char *uid = NULL, *pw = NULL;
	char tok[TOKEN_MAX];
	struct login *l = NULL;
	enum MHD_Result ret;
	time_t expires;
	struct err e;
	json_t *o;
	int admin;

	memset(&e, 0, sizeof(e));
	if (r->cfg->ui_token_key == NULL)
		return http_error(r, 404, "not_found", NULL, "sign-in is off (no ui section in %s)",
		    r->cfg->path);
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL ||
	    body_str(o, "uid", 64, 1, &uid, &e) != 0 ||
	    body_str(o, "password", LOGIN_PW_MAX - 1, 1, &pw, &e) != 0) {
		json_decref(o);
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	}
	if ((l = malloc(sizeof(*l))) == NULL) {
		json_decref(o);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	if (login_password(r->cfg, uid, pw, http_addr(r), l, &e) != 0) {
		ret = e.code == ERR_CONFLICT ? http_error(r, 429, "too_many_logins", NULL, "%s", e.msg) :
		    e.code == ERR_FORBIDDEN ? http_error(r, 401, "bad_credentials", "password",
		    "unknown user or wrong password") : http_err(r, &e, "sign_in_failed");
		log_info("ui: sign-in of %.64s from %s refused: %s", uid, r->addr, e.msg);
		goto done;
	}
	admin = token_admin(r->cfg, l->uid);
	if (token_make(r->cfg, l->uid, admin, time(NULL), tok, &expires) != 0) {
		ret = http_error(r, 500, "internal", NULL, "cannot make a token");
		goto done;
	}
	log_info("ui: %s signed in from %s%s", l->uid, r->addr, admin ? " (administrator)" : "");
	ret = http_json(r, 200, json_pack("{s:s, s:s, s:b, s:I, s:I}", "token", tok, "uid", l->uid,
	    "admin", admin, "expires", (json_int_t)expires, "ttl_s",
	    (json_int_t)r->cfg->ui_token_ttl_s));
	explicit_bzero(tok, sizeof(tok));
done:
	explicit_bzero(l, sizeof(*l));
	free(l);
	if (pw != NULL)
		explicit_bzero((char *)pw, strlen(pw));
	json_decref(o);
	return ret;
}

/* DELETE /v1/accounts/{uid}/tokens (admin): ends every sign-in uid made until now. */
enum MHD_Result
ui_tokens_revoke(struct req *r)
{
	const struct snap_account *a;
	const struct snap *s;
	char uid[65] = "";
	struct err e;
	int t;

	memset(&e, 0, sizeof(e));
	if ((s = snap_enter(&t)) != NULL && (a = snap_account(s, r->part[2])) != NULL)
		snprintf(uid, sizeof(uid), "%s", a->uid);
	snap_leave(t);
	if (uid[0] == '\0')
		return http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
	if (tokenlive_revoke(r->cfg, uid, &e) != 0)
		return http_err(r, &e, "revoke_failed");
	log_info("ui: every sign-in of %s ended by %s from %s", uid, r->actor ? r->actor : "-",
	    r->addr);
	return http_json(r, 200, json_pack("{s:s, s:b}", "account", uid, "revoked", 1));
}
