/* privctl.c - the administrator's command line for privd (a REST client). */
#include <stdio.h>
#include <string.h>

#define PRIVCTL_VERSION "0.1.0"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: privctl [--url URL] [--key KEY] [--json] COMMAND [ARGS]\n"
	    "       privctl --version\n"
	    "\n"
	    "privctl talks to privd's REST API. Commands (tree, grant, revoke, add,\n"
	    "remove, show, explain, who, quota, ledger, credit, import, export) are\n"
	    "not built yet; use the REST API directly (see README.md).\n");
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("privctl %s\n", PRIVCTL_VERSION);
		return 0;
	}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
