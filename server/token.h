/*
 * token.h - the web page's sign-in tokens: a person's uid, whether they
 * administer, and an expiry, signed with HMAC-SHA256 under ui.token_key,
 * so the password crosses the wire once and privd keeps no session state.
 * The form is "pt1~UID~A~EXPIRY~HEX" (A: 1 administrator, 0 not).
 */
#ifndef PRIVD_TOKEN_H
#define PRIVD_TOKEN_H

#include <time.h>

#include "config.h"

#define TOKEN_MAX 192

struct token {
	char uid[65];
	int admin;
	time_t expires;
	time_t issued;		/* expires less ui.token_ttl as it is now */
};

/* A token for uid valid until now + ui.token_ttl into out; -1 when uid
 * does not fit. */
int token_make(const struct cfg *c, const char *uid, int admin, time_t now,
    char out[TOKEN_MAX], time_t *expires);
/* 0 and t when text is a token privd signed and it has not expired; -1
 * otherwise (the signature compared in constant time). */
int token_check(const struct cfg *c, const char *text, time_t now, struct token *t);
/* Whether uid is one of ui.admins (without regard to case, as uid matches). */
int token_admin(const struct cfg *c, const char *uid);

/*
 * From now on sign and check with c's ui.token_key and take c's ui.admins
 * (copied), in place of those of the configuration each call names: a
 * reload (SIGHUP) calls it with the configuration just read. 0 or -1.
 */
int token_use(const struct cfg *c);
/* Back to each call's configuration; frees the copies. */
void token_forget(void);

#endif
