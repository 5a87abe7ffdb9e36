/*
 * indoubt.c - request ids whose write's outcome is unknown on the home
 * provider (indoubt.h). A small table under one lock: it holds only the
 * writes that were in flight when a provider went away, and forgets them
 * after an hour (by then the provider is back, or an operator is looking).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "indoubt.h"
#include "strmap.h"

#define KEEP_S		3600
#define MAX_IDS		65536

struct item {
	time_t since;
	char key[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct strmap ids;

static int
key_of(const char *uid, const char *rid, char *out, size_t n)
{
	return snprintf(out, n, "%s\n%s", uid, rid) < (int)n ? 0 : -1;
}

void
indoubt_add(const char *uid, const char *rid)
{
	char key[512];
	struct item *it;
	int failed = 0;

	if (key_of(uid, rid, key, sizeof(key)) != 0)
		return;
	pthread_mutex_lock(&lock);
	if (strmap_get(&ids, key) == NULL && ids.len < MAX_IDS &&
	    (it = malloc(sizeof(*it) + strlen(key) + 1)) != NULL) {
		it->since = time(NULL);
		strcpy(it->key, key);
		strmap_put(&ids, it->key, it, &failed);
		if (failed)
			free(it);
	}
	pthread_mutex_unlock(&lock);
}

int
indoubt_has(const char *uid, const char *rid)
{
	char key[512];
	struct item *it;
	int has = 0;

	if (key_of(uid, rid, key, sizeof(key)) != 0)
		return 0;
	pthread_mutex_lock(&lock);
	if ((it = strmap_get(&ids, key)) != NULL) {
		if (time(NULL) - it->since > KEEP_S)
			free(strmap_del(&ids, key));
		else
			has = 1;
	}
	pthread_mutex_unlock(&lock);
	return has;
}

void
indoubt_del(const char *uid, const char *rid)
{
	char key[512];

	if (key_of(uid, rid, key, sizeof(key)) != 0)
		return;
	pthread_mutex_lock(&lock);
	if (ids.len > 0)
		free(strmap_del(&ids, key));
	pthread_mutex_unlock(&lock);
}
