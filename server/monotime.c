/* monotime.c - milliseconds on the monotonic clock (monotime.h). */
#include <time.h>

#include "monotime.h"

long long
monotime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
