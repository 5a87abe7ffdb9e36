/* usage.c - the striped table of quota usage that reads answer from. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "usage.h"

#define STRIPES USAGE_STRIPES

struct item {
	char *key;
	struct usage_val v;
};

static struct stripe {
	pthread_mutex_t lock;
	struct strmap map;
} stripes[STRIPES] = {
#define S { PTHREAD_MUTEX_INITIALIZER, { NULL, 0, 0 } }
#define S8 S, S, S, S, S, S, S, S
	S8, S8, S8, S8, S8, S8, S8, S8
#undef S8
#undef S
};

static struct stripe *
stripe_of(const char *key)
{
	/* the high bits: each stripe's map places its keys by the low ones */
	return &stripes[(strmap_hash(key) >> 32) % STRIPES];
}

void
usage_key(char out[USAGE_KEY_MAX], const char *uid, const char *quota,
    const char *period)
{
	/* on every read of a quota: no printf */
	size_t a = strlen(uid), b = strlen(quota), c = strlen(period);

	if (a + b + c + 3 > USAGE_KEY_MAX) {
		snprintf(out, USAGE_KEY_MAX, "%s/%s@%s", uid, quota, period);
		return;
	}
	memcpy(out, uid, a);
	out[a] = '/';
	memcpy(out + a + 1, quota, b);
	out[a + 1 + b] = '@';
	memcpy(out + a + b + 2, period, c + 1);
}

int
usage_get(const char *key, struct usage_val *v)
{
	struct stripe *s = stripe_of(key);
	struct item *it;

	pthread_mutex_lock(&s->lock);
	if ((it = strmap_get(&s->map, key)) != NULL)
		*v = it->v;
	pthread_mutex_unlock(&s->lock);
	if (it == NULL)
		memset(v, 0, sizeof(*v));
	return it ? 0 : -1;
}

int
usage_each_of(size_t i, int (*fn)(void *arg, const char *key, const struct usage_val *v),
    void *arg)
{
	size_t j;
	int rc = 0;

	pthread_mutex_lock(&stripes[i].lock);
	for (j = 0; rc == 0 && j < stripes[i].map.cap; j++) {
		const struct item *it = stripes[i].map.slots[j].val;

		if (stripes[i].map.slots[j].key != NULL)
			rc = fn(arg, it->key, &it->v);
	}
	pthread_mutex_unlock(&stripes[i].lock);
	return rc;
}

long long
usage_remaining(long long limit, const struct usage_val *u)
{
	long long rem = limit + u->credit - u->used;

	return rem > 0 ? rem : 0;
}

int
usage_get_for(const char *uid, const char *quota, const char *period,
    struct usage_val *v)
{
	char key[USAGE_KEY_MAX];

	usage_key(key, uid, quota, period);
	return usage_get(key, v);
}

static atomic_long npaid;	/* keys of paid wallets in the table */

static int
is_paid(const char *key)
{
	size_t n = strlen(key), k = strlen("@" USAGE_PAID_PERIOD);

	return n > k && strcmp(key + n - k, "@" USAGE_PAID_PERIOD) == 0;
}

int
usage_any_paid(void)
{
	return atomic_load(&npaid) > 0;
}

int
usage_put(const char *key, const struct usage_val *v)
{
	struct stripe *s = stripe_of(key);
	struct item *it;
	int failed = 0, rc = 0;

	pthread_mutex_lock(&s->lock);
	if ((it = strmap_get(&s->map, key)) != NULL) {
		/* CSNs start with a GeneralizedTime: text order is time order */
		if (strcmp(v->csn, it->v.csn) >= 0)
			it->v = *v;
		goto out;
	}
	if ((it = calloc(1, sizeof(*it))) == NULL || (it->key = strdup(key)) == NULL)
		goto fail;
	it->v = *v;
	strmap_put(&s->map, it->key, it, &failed);
	if (failed)
		goto fail;
	if (is_paid(key))
		atomic_fetch_add(&npaid, 1);
	goto out;
fail:
	if (it)
		free(it->key);
	free(it);
	rc = -1;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void
usage_del(const char *key)
{
	struct stripe *s = stripe_of(key);
	struct item *it;

	pthread_mutex_lock(&s->lock);
	it = strmap_del(&s->map, key);
	pthread_mutex_unlock(&s->lock);
	if (it && is_paid(it->key))
		atomic_fetch_sub(&npaid, 1);
	if (it)
		free(it->key);
	free(it);
}

void
usage_clear(void)
{
	size_t i, j;

	for (i = 0; i < STRIPES; i++) {
		struct stripe *s = &stripes[i];

		pthread_mutex_lock(&s->lock);
		for (j = 0; j < s->map.cap; j++) {
			struct item *it = s->map.slots[j].val;

			if (s->map.slots[j].key == NULL)
				continue;
			free(it->key);
			free(it);
		}
		strmap_free(&s->map);
		pthread_mutex_unlock(&s->lock);
	}
	atomic_store(&npaid, 0);
}

size_t
usage_count(void)
{
	size_t i, n = 0;

	for (i = 0; i < STRIPES; i++) {
		pthread_mutex_lock(&stripes[i].lock);
		n += stripes[i].map.len;
		pthread_mutex_unlock(&stripes[i].lock);
	}
	return n;
}
