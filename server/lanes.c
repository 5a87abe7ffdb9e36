/*
 * lanes.c - one job in two halves on the two cores these machines have
 * (lanes.h): a snapshot's cells and accounts, a usage report's walk.
 */
#include <pthread.h>

#include "lanes.h"

void
lanes_run(void *(*fn)(void *), void *first, void *second, int threaded)
{
	pthread_t t;

	threaded = threaded && pthread_create(&t, NULL, fn, second) == 0;
	fn(first);
	if (threaded)
		pthread_join(t, NULL);
	else
		fn(second);
}
