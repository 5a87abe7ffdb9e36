/* harness.h - shared helpers of the integration tests (harness.c). */
#ifndef PRIVD_HARNESS_H
#define PRIVD_HARNESS_H

#include <stddef.h>

#include <jansson.h>

#define READ_KEY "dev-read-4d1c8e27b9"
#define CHARGE_KEY "dev-charge-93fa06d2c1"
#define ADMIN_KEY "dev-admin-5be71f0a48"
#define BASE "ou=privileges,dc=example,dc=edu"

extern char it_dir[];		/* this run's temporary directory */
extern char it_http_base[64];	/* http://127.0.0.1:PORT */
extern int it_ldap_port;
extern long it_timeout_s;	/* per request (default 20) */

/* One request; returns the body (caller frees) and sets *status. */
char *it_request(const char *method, const char *path, const char *key,
    const char *body, size_t body_len, long *status);
/* The same without failing the test (for threads): NULL and *status 0
 * when there is no answer. */
char *it_try_request(const char *method, const char *path, const char *key,
    const char *body, size_t body_len, long *status);
/* A JSON request that must answer want; the parsed body (caller decrefs). */
json_t *it_call(const char *method, const char *path, const char *key,
    const char *body, long want);
json_t *it_get(const char *path, long want);
/* A whole file, NUL-terminated (caller frees); its length into len if not NULL. */
/* a sample of /metrics, LINE its name and labels up to the value, e.g.
 * "privd_stale ": its value, or -1 when privd does not show it */
long it_metric(const char *line);
char *it_slurp(const char *path, size_t *len);	/* with the read key */
/* Runs a shell command; the test fails unless it exits 0. */
void it_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Applies LDIF as the directory's administrator, behind privd's back. */
void it_ldapmodify(const char *ldif);
/* How many entries match filter under base. */
int it_ldap_count(const char *base, const char *filter);
long it_now_ms(void);
json_int_t it_limit_of(const char *uid, const char *priv);
/* A number field of a read (with the read key) that must answer 200. */
json_int_t it_number(const char *path, const char *field);
/* The integer field k of j; the test fails when there is none. */
json_int_t it_num(json_t *j, const char *k);
/* The pid in this run's env/NAME ("privd.pid", "slapd/slapd.pid"), or -1. */
int it_pid_of(const char *name);
/* Runs privd --check-ledger against this run's slapd; the test fails unless it passes. */
void it_check_ledger(void);
/* Polls until fn() is true or ms pass: the milliseconds it took, or -1. */
long it_within(long ms, int (*fn)(void));
int it_allowed(const char *path);
int it_ready(void);
int it_not_ready(void);
/* What it_race saw: answers 201, 409 and anything else. */
struct it_tally {
	int ok, refused, other;
};
/*
 * threads threads each POST each requests to path with key at once; body
 * writes request i of thread t into buf (n bytes). Never fails the test
 * from a thread; the caller asserts on the tally.
 */
struct it_tally it_race(int threads, int each, const char *path, const char *key,
    void (*body)(int t, int i, char *buf, size_t n));
/* Runs privctl (PRIVCTL_BIN) against this run's privd with the admin key:
 * its exit status, stdout and stderr in out (n bytes). */
int it_privctl(char *out, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* cmocka group setup/teardown: start and stop slapd and privd. */
int it_group_setup(void **state);
/* it_group_setup, then model imported (it must answer 200). */
int it_group_setup_model(void **state, const char *model);
int it_group_teardown(void **state);

#endif
