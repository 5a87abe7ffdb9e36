/* fault.c - the test's fault points (fault.h). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "log.h"

static char point[64];
static int pause_s;	/* -1: hang there until killed */
static char lose[128];	/* NAME:lose=TEXT: the DN's text */
static atomic_int lost;

void
fault_init(void)
{
	const char *f = getenv("PRIVD_FAULT");
	const char *colon = f ? strchr(f, ':') : NULL;

	if (colon == NULL || (size_t)(colon - f) >= sizeof(point))
		return;
	memcpy(point, f, (size_t)(colon - f));
	point[colon - f] = '\0';
	if (strncmp(colon + 1, "lose=", 5) == 0) {
		snprintf(lose, sizeof(lose), "%s", colon + 6);
		log_warn("PRIVD_FAULT: privd loses the answer of its first write at %s of an "
		    "entry named with '%s' (a test's fault, never for production)", point, lose);
		return;
	}
	pause_s = strcmp(colon + 1, "pause") == 0 ? 3 : strcmp(colon + 1, "hang") == 0 ? -1 : 0;
	log_warn("PRIVD_FAULT: privd %s at %s (a test's fault, never for production)",
	    pause_s > 0 ? "pauses" : pause_s < 0 ? "hangs" : "is killed", point);
}

int
fault_lose(const char *name, const char *dn)
{
	if (lose[0] == '\0' || strcmp(point, name) != 0 || strstr(dn, lose) == NULL ||
	    atomic_exchange(&lost, 1))
		return 0;
	log_warn("PRIVD_FAULT: the answer to the write of %s is lost", dn);
	return 1;
}

void
fault_point(const char *name)
{
	if (point[0] == '\0' || lose[0] != '\0' || strcmp(point, name) != 0)
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
