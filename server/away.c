/* away.c - amounts charged away from home, per quota key (away.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "away.h"
#include "strmap.h"

struct item {
	long long n;
	char key[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct strmap taken;

int
away_take(const char *key, long long n, long long allowance)
{
	struct item *it;
	size_t kl = strlen(key);
	int failed = 0, rc = -1;

	pthread_mutex_lock(&lock);
	if ((it = strmap_get(&taken, key)) == NULL) {
		if ((it = calloc(1, sizeof(*it) + kl + 1)) == NULL)
			goto done;
		memcpy(it->key, key, kl + 1);
		strmap_put(&taken, it->key, it, &failed);
		if (failed) {
			free(it);
			goto done;
		}
	}
	if (it->n + n <= allowance) {
		it->n += n;
		rc = 0;
	}
done:
	pthread_mutex_unlock(&lock);
	return rc;
}

void
away_forget(const char *key)
{
	pthread_mutex_lock(&lock);
	if (taken.len > 0)
		free(strmap_del(&taken, key));
	pthread_mutex_unlock(&lock);
}

void
away_clear(void)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < taken.cap; i++)
		free(taken.slots[i].val);
	strmap_free(&taken);
	strmap_init(&taken);
	pthread_mutex_unlock(&lock);
}
