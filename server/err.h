/* err.h - an error a caller can show to a user: code, line, key, message. */
#ifndef PRIVD_ERR_H
#define PRIVD_ERR_H

#define ERR_MSG_MAX 512

enum err_code {
	ERR_NONE = 0,
	ERR_INVALID,		/* bad input: 400, or a config error */
	ERR_NOT_FOUND,		/* 404 */
	ERR_CONFLICT,		/* 409 */
	ERR_UNAVAILABLE,	/* LDAP down: 503 */
	ERR_FORBIDDEN,		/* refused by the directory's ACLs: 403 */
	ERR_STOPPING,		/* privd is stopping: 503, send it again */
	ERR_SCHEMA,		/* the directory lacks privd's schema: 503, load it */
	ERR_INTERNAL		/* 500 */
};

/* What a refusal is about, where a caller acts on it (the message is for people). */
enum err_why {
	ERR_WHY_NONE = 0,
	ERR_WHY_IMPORT,		/* another change (import) is open, or this one was stopped */
	ERR_WHY_CONFLICT,	/* the entry changed between an edit's read and its write */
};

struct err {
	enum err_code code;
	enum err_why why;
	int line;		/* 1-based source line, 0 when none */
	char key[128];		/* the field or key at fault, "" when none */
	char msg[ERR_MSG_MAX];
};

/* Fills e (when not NULL) and returns -1, so callers can `return err_set(...)`. */
int err_set(struct err *e, enum err_code code, int line, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* e: ERR_INTERNAL "out of memory"; -1 (`return err_oom(e)`). */
int err_oom(struct err *e);
/* Sets e's why (when e is not NULL) and returns -1: `return err_why(e, ...)`. */
int err_why(struct err *e, enum err_why why);

#endif
