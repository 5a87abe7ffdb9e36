/* reportrows.c - a quota's usage sorted by account, for a report's walk (reportrows.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "reportrows.h"

static int
rrows_take(void *arg, const char *key, const struct usage_val *v)
{
	struct rrows *u = arg;
	size_t kl = strlen(key), ul;
	const struct snap_account *a;
	char uid[256];
	int paid;

	if (kl > u->lper && strcmp(key + kl - u->lper, u->per) == 0) {
		paid = 0;
		ul = kl - u->lper;
	} else if (kl > u->lpaid && strcmp(key + kl - u->lpaid, u->paid) == 0) {
		paid = 1;
		ul = kl - u->lpaid;
	} else
		return 0;
	if (ul >= sizeof(uid))
		return 0;
	memcpy(uid, key, ul);
	uid[ul] = '\0';
	/* the account's own spelling only, as a lookup by a->uid would */
	if ((a = snap_account(u->s, uid)) == NULL || strcmp(a->uid, uid) != 0)
		return 0;
	if (u->n == u->cap) {
		size_t nc = u->cap ? 2 * u->cap : 1024;
		struct rrows_hit *nh = realloc(u->h, nc * sizeof(*nh));

		if (nh == NULL) {
			u->oom = 1;
			return -1;
		}
		u->h = nh;
		u->cap = nc;
	}
	u->h[u->n++] = (struct rrows_hit){ snap_core_index(u->s, a), (unsigned char)paid, a, v->used,
	    v->credit, v->held };
	return 0;
}

static int
hit_order(const void *x, const void *y)
{
	const struct rrows_hit *a = x, *b = y;

	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	return a->a < b->a ? -1 : a->a > b->a;
}

/* A lane of the usage pass: its half of the table's stripes, sorted. */
struct rrows_lane {
	struct rrows us;
	size_t lo, hi;
};

static void *
rrows_lane_run(void *arg)
{
	struct rrows_lane *l = arg;
	size_t i;

	for (i = l->lo; i < l->hi && !l->us.oom; i++)
		usage_each_of(i, rrows_take, &l->us);
	if (!l->us.oom && l->us.n > 0)
		qsort(l->us.h, l->us.n, sizeof(*l->us.h), hit_order);
	return NULL;
}

/*
 * The hits, sorted: each a lookup of its uid among a million accounts
 * (cache misses, most of it), in one lane over all the table's stripes,
 * or in two over half each, merged.
 */
int
rrows_fill(struct rrows *us, const struct snap *s, const char *quota, const char *period,
    int lanes)
{
	struct rrows_lane l[2];
	size_t i, a = 0, b = 0;

	memset(us, 0, sizeof(*us));
	us->s = s;
	us->lper = (size_t)snprintf(us->per, sizeof(us->per), "/%s@%s", quota, period);
	us->lpaid = (size_t)snprintf(us->paid, sizeof(us->paid), "/%s@%s", quota,
	    USAGE_PAID_PERIOD);
	if (us->lper >= sizeof(us->per) || us->lpaid >= sizeof(us->paid))
		return -1;
	if (lanes < 2) {
		l[0] = (struct rrows_lane){ *us, 0, USAGE_STRIPES };
		rrows_lane_run(&l[0]);
		*us = l[0].us;	/* the caller frees what was taken, oom or not */
		return us->oom ? -1 : 0;
	}
	for (i = 0; i < 2; i++) {
		l[i].us = *us;
		l[i].us.h = NULL;
		l[i].us.n = l[i].us.cap = 0;
		l[i].lo = i * USAGE_STRIPES / 2;
		l[i].hi = (i + 1) * USAGE_STRIPES / 2;
	}
	lanes_run(rrows_lane_run, &l[0], &l[1], 1);
	if (l[0].us.oom || l[1].us.oom || (us->h = malloc((l[0].us.n + l[1].us.n + 1) *
	    sizeof(*us->h))) == NULL) {
		free(l[0].us.h);
		free(l[1].us.h);
		return -1;
	}
	us->n = us->cap = l[0].us.n + l[1].us.n;
	for (i = 0; i < us->n; i++)
		if (b == l[1].us.n || (a < l[0].us.n && hit_order(&l[0].us.h[a], &l[1].us.h[b]) <= 0))
			us->h[i] = l[0].us.h[a++];
		else
			us->h[i] = l[1].us.h[b++];
	free(l[0].us.h);
	free(l[1].us.h);
	return 0;
}

void
rrows_get(struct rrows *us, const struct snap_account *a, struct usage_val *u, struct usage_val *w)
{
	uint32_t idx = snap_core_index(us->s, a);
	size_t k;

	memset(u, 0, sizeof(*u));
	memset(w, 0, sizeof(*w));
	if (idx != UINT32_MAX) {
		while (us->at < us->n && us->h[us->at].idx < idx)
			us->at++;
		k = us->at;
	} else {
		/* the overlay's few: the first of a's entries, by halves */
		size_t lo = us->at, hi = us->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (us->h[mid].idx < idx || (us->h[mid].idx == idx && us->h[mid].a < a))
				lo = mid + 1;
			else
				hi = mid;
		}
		k = lo;
	}
	for (; k < us->n && us->h[k].idx == idx && us->h[k].a == a; k++) {
		struct usage_val *t = us->h[k].paid ? w : u;

		t->used = us->h[k].used;
		t->credit = us->h[k].credit;
		t->held = us->h[k].held;
	}
}

size_t
rrows_seek(const struct rrows *us, size_t lo)
{
	size_t a = 0, b = us->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (us->h[mid].idx < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

void
rrows_free(struct rrows *us)
{
	free(us->h);
	us->h = NULL;
	us->n = us->cap = us->at = 0;
}
