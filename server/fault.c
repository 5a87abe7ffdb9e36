/* fault.c - the test's fault points (fault.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "log.h"

static char point[64];
static int pause_s;	/* -1: hang there until killed */

void
fault_init(void)
{
	const char *f = getenv("PRIVD_FAULT");
	const char *colon = f ? strchr(f, ':') : NULL;

	if (colon == NULL || (size_t)(colon - f) >= sizeof(point))
		return;
	memcpy(point, f, (size_t)(colon - f));
	point[colon - f] = '\0';
	pause_s = strcmp(colon + 1, "pause") == 0 ? 3 : strcmp(colon + 1, "hang") == 0 ? -1 : 0;
	log_warn("PRIVD_FAULT: privd %s at %s (a test's fault, never for production)",
	    pause_s > 0 ? "pauses" : pause_s < 0 ? "hangs" : "is killed", point);
}

void
fault_point(const char *name)
{
	if (point[0] == '\0' || strcmp(point, name) != 0)
		return;
	if (pause_s < 0) {
		log_warn("PRIVD_FAULT: hanging at %s", name);
		for (;;)
			pause();
	}
	if (pause_s > 0) {
		log_warn("PRIVD_FAULT: pausing at %s", name);
		sleep((unsigned)pause_s);
		return;
	}
	raise(SIGKILL);
}
