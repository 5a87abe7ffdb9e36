/* keylock.c - striped locks that serialise this privd's writes of one counter (keylock.h). */
#include <pthread.h>

#include "keylock.h"
#include "strmap.h"

#define STRIPES 256

static pthread_mutex_t locks[STRIPES];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
init(void)
{
	int i;

	for (i = 0; i < STRIPES; i++)
		pthread_mutex_init(&locks[i], NULL);
}

static pthread_mutex_t *
stripe(const char *key)
{
	pthread_once(&once, init);
	return &locks[(strmap_hash(key) >> 32) % STRIPES];
}

void
keylock_take(const char *key)
{
	pthread_mutex_lock(stripe(key));
}

void
keylock_give(const char *key)
{
	pthread_mutex_unlock(stripe(key));
}
