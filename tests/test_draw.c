/*
 * test_draw.c - the draw policy (draw.h) over two fake providers: writes
 * go home, a request in doubt waits for home, fallback lands whole on the
 * account's own quota or the most specific pool with room, once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "draw.h"
#include "indoubt.h"

/* two providers; an LDAP * is the address of one of them */
static int prov[2];
#define HOME	((LDAP *)&prov[0])
#define OTHER	((LDAP *)&prov[1])

/* a holder's quota as the fake directory keeps it */
struct fq {
	char holder[64];
	long long used, limit;
	char rids[8][32];
	int nrid;
};

static struct {
	int home_down;		/* get_home hands out OTHER (writes failing over) */
	int vanish;		/* the next write reaches home, then home goes away */
	enum quota_why refuse;	/* writes on refuse_on are refused with this */
	const char *refuse_on;
	int gets, puts, writes;
	LDAP *last;		/* where the last write went */
	int last_home;		/* q->home of the last write */
	struct fq q[4];
	int nq;
	struct draw_pool pools[3];
	size_t npools;
} w;

static struct fq *
fq_of(const char *holder)
{
	int i;

	for (i = 0; i < w.nq; i++)
		if (strcmp(w.q[i].holder, holder) == 0)
			return &w.q[i];
	fail_msg("no quota for %s", holder);
	return NULL;
}

static int
has_rid(const struct fq *f, const char *rid)
{
	int i;

	for (i = 0; i < f->nrid; i++)
		if (strcmp(f->rids[i], rid) == 0)
			return 1;
	return 0;
}

static int
f_get_home(const char *holder, LDAP **ld, struct err *e)
{
	(void)holder;
	(void)e;
	w.gets++;
	*ld = w.home_down ? OTHER : HOME;
	return 0;
}

static int
f_is_home(LDAP *ld, const char *holder)
{
	(void)holder;
	return ld == HOME;
}

static void
f_put(LDAP *ld, int broken)
{
	(void)ld;
	(void)broken;
	w.puts++;
}

static int
f_pools(const struct quota_req *q, struct draw_pool **out, size_t *n)
{
	(void)q;
	*out = calloc(3, sizeof(**out));
	memcpy(*out, w.pools, sizeof(w.pools));
	*n = w.npools;
	return *out ? 0 : -1;
}

static int
f_seen(LDAP *ld, const struct quota_req *q, const char *rid, int hold, long long amount,
    struct quota_res *r, struct err *e)
{
	(void)ld;
	(void)hold;
	(void)e;
	if (!has_rid(fq_of(q->uid), rid))
		return 0;
	r->replayed = 1;
	r->amount = amount;
	return 1;
}

static int
f_write(LDAP *ld, const struct quota_req *q, const struct draw_req *d, struct quota_res *r,
    struct err *e)
{
	struct fq *f = fq_of(q->uid);

	w.writes++;
	w.last = ld;
	w.last_home = q->home;
	if (has_rid(f, d->rid)) {
		r->replayed = 1;
		r->amount = d->amount;
		return 0;
	}
	if (w.refuse_on != NULL && strcmp(w.refuse_on, q->uid) == 0) {
		r->why = w.refuse;
		return err_set(e, ERR_CONFLICT, 0, "request_id", "refused");
	}
	if (f->used + d->amount > q->limit) {
		r->why = QUOTA_EXCEEDED;
		return err_set(e, ERR_CONFLICT, 0, "amount", "%s has %lld left", q->uid,
		    q->limit - f->used);
	}
	f->used += d->amount;
	snprintf(f->rids[f->nrid++], sizeof(f->rids[0]), "%s", d->rid);
	r->amount = d->amount;
	if (w.vanish) {
		/* it landed, but the answer went with the provider */
		w.vanish = 0;
		w.home_down = 1;
		memset(r, 0, sizeof(*r));
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "connection lost");
	}
	return 0;
}

static const struct draw_ops ops = {
	.get_home = f_get_home, .is_home = f_is_home, .put = f_put, .pools = f_pools,
	.seen = f_seen, .write = f_write,
};

static void
holder(const char *name, long long used, long long limit)
{
	snprintf(w.q[w.nq].holder, sizeof(w.q[0].holder), "%s", name);
	w.q[w.nq].used = used;
	w.q[w.nq].limit = limit;
	w.nq++;
}

static void
pool(const char *holder_name, long long limit)
{
	snprintf(w.pools[w.npools].holder, sizeof(w.pools[0].holder), "%s", holder_name);
	w.pools[w.npools++].limit = limit;
}

/* alice with own limit, and her pools pool:cse (most specific) and pool:eng */
static int
setup(void **state)
{
	(void)state;
	memset(&w, 0, sizeof(w));
	holder("alice", 0, 10);
	holder("pool:cse", 0, 20);
	holder("pool:eng", 0, 100);
	pool("pool:cse", 20);
	pool("pool:eng", 100);
	return 0;
}

static void
req(struct quota_req *q)
{
	memset(q, 0, sizeof(*q));
	q->uid = "alice";
	q->quota = "print.pages";
	q->actor = "test";
	q->limit = 10;
}

static int
run(const char *rid, long long amount, int fallback, struct draw_res *out, struct err *e)
{
	struct draw_req d = { .op = DRAW_CHARGE, .rid = rid, .amount = amount,
	    .fallback = fallback };
	struct quota_req q;

	req(&q);
	memset(e, 0, sizeof(*e));
	return draw_with(&ops, &q, &d, out, e);
}

/* a write goes through the home provider, which it knows is home */
static void
goes_home(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	assert_int_equal(run("r1", 4, 0, &out, &e), 0);
	assert_ptr_equal(w.last, HOME);
	assert_int_equal(w.last_home, 1);
	assert_string_equal(out.on.uid, "alice");
	assert_int_equal(fq_of("alice")->used, 4);
	assert_int_equal(w.gets, w.puts);
}

/* home took the write and went away before answering: the request is in
 * doubt and is not sent elsewhere; other requests are; when home is back
 * the retry is found there as a replay and the doubt ends */
static void
in_doubt_waits_for_home(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	w.vanish = 1;
	assert_int_equal(run("r1", 4, 0, &out, &e), -1);
	assert_int_equal(e.code, ERR_UNAVAILABLE);
	assert_true(indoubt_has("alice", "r1"));
	w.writes = 0;
	assert_int_equal(run("r1", 4, 0, &out, &e), -1);
	assert_int_equal(e.code, ERR_UNAVAILABLE);
	assert_int_equal(out.res.why, QUOTA_WHY_NONE);
	assert_non_null(strstr(e.msg, "never charged twice"));
	assert_int_equal(w.writes, 0);
	assert_int_equal(fq_of("alice")->used, 4);
	/* another request fails over */
	assert_int_equal(run("r2", 1, 0, &out, &e), 0);
	assert_ptr_equal(w.last, OTHER);
	assert_int_equal(w.last_home, 0);
	w.home_down = 0;
	assert_int_equal(run("r1", 4, 0, &out, &e), 0);
	assert_true(out.res.replayed);
	assert_false(indoubt_has("alice", "r1"));
	assert_int_equal(fq_of("alice")->used, 5);
	assert_int_equal(w.gets, w.puts);
}

/* a refusal is an answer: no doubt remains */
static void
refusal_ends_doubt(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	indoubt_add("alice", "r9");
	assert_int_equal(run("r9", 11, 0, &out, &e), -1);
	assert_int_equal(out.res.why, QUOTA_EXCEEDED);
	assert_false(indoubt_has("alice", "r9"));
}

/* with room of its own, the account pays */
static void
fallback_personal_first(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	assert_int_equal(run("r1", 10, 1, &out, &e), 0);
	assert_string_equal(out.charged_to, "personal");
	assert_string_equal(out.on.uid, "alice");
	assert_int_equal(fq_of("alice")->used, 10);
	assert_int_equal(fq_of("pool:cse")->used, 0);
}

/* own quota full, the most specific pool full: the next pool takes it
 * whole, in the account's name */
static void
fallback_most_specific_pool_with_room(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	fq_of("alice")->used = 8;
	fq_of("pool:cse")->used = 19;
	assert_int_equal(run("r1", 5, 1, &out, &e), 0);
	assert_string_equal(out.charged_to, "eng");
	assert_string_equal(out.on.uid, "pool:eng");
	assert_string_equal(out.on.account, "alice");
	assert_int_equal(out.on.limit, 100);
	assert_int_equal(fq_of("alice")->used, 8);
	assert_int_equal(fq_of("pool:cse")->used, 19);
	assert_int_equal(fq_of("pool:eng")->used, 5);
	assert_int_equal(w.gets, w.puts);
}

/* a retry of what a pool took is a replay there, even when the account's
 * own quota has room again */
static void
fallback_retry_is_a_replay(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	fq_of("alice")->used = 10;
	assert_int_equal(run("r1", 5, 1, &out, &e), 0);
	assert_string_equal(out.charged_to, "cse");
	fq_of("alice")->used = 0;
	assert_int_equal(run("r1", 5, 1, &out, &e), 0);
	assert_true(out.res.replayed);
	assert_string_equal(out.charged_to, "cse");
	assert_int_equal(fq_of("alice")->used, 0);
	assert_int_equal(fq_of("pool:cse")->used, 5);
}

/* nowhere with room: the account's own refusal, saying how many pools */
static void
fallback_nowhere(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	fq_of("alice")->used = 10;
	fq_of("pool:cse")->used = 20;
	fq_of("pool:eng")->used = 100;
	assert_int_equal(run("r1", 1, 1, &out, &e), -1);
	assert_int_equal(out.res.why, QUOTA_EXCEEDED);
	assert_string_equal(out.on.uid, "alice");
	assert_non_null(strstr(e.msg, "alice has 0 left"));
	assert_non_null(strstr(e.msg, "(2 tried)"));
}

/* a pool's refusal for another reason ends the search there */
static void
fallback_other_refusal_stops(void **state)
{
	struct draw_res out;
	struct err e;

	(void)state;
	fq_of("alice")->used = 10;
	w.refuse = QUOTA_ID_REUSED;
	w.refuse_on = "pool:cse";
	assert_int_equal(run("r1", 1, 1, &out, &e), -1);
	assert_int_equal(out.res.why, QUOTA_ID_REUSED);
	assert_string_equal(out.on.uid, "pool:cse");
	assert_int_equal(w.writes, 2);
	assert_int_equal(fq_of("pool:eng")->used, 0);
}

FX_MAIN("draw",
    cmocka_unit_test_setup(goes_home, setup),
    cmocka_unit_test_setup(in_doubt_waits_for_home, setup),
    cmocka_unit_test_setup(refusal_ends_doubt, setup),
    cmocka_unit_test_setup(fallback_personal_first, setup),
    cmocka_unit_test_setup(fallback_most_specific_pool_with_room, setup),
    cmocka_unit_test_setup(fallback_retry_is_a_replay, setup),
    cmocka_unit_test_setup(fallback_nowhere, setup),
    cmocka_unit_test_setup(fallback_other_refusal_stops, setup))
