/*
 * population.c - a synthetic school population in the import format, for
 * the bulk import tests and make bench: the demo's reasons, 225
 * organisation nodes (5 faculties, 4 schools each, 10 groups a school),
 * about 900 cells with grants, and ACCOUNTS accounts named PREFIX000000...
 * with one or two memberships. Deterministic. jdoe gets a membership in
 * the first group, so an import changes an account that already exists.
 * Usage: population ACCOUNTS [PREFIX [PAGES]] > pop.yaml
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int accounts = argc > 1 ? atoi(argv[1]) : 20000, f, s, g, i, pages;
	const char *prefix = argc > 2 ? argv[2] : "u";
	unsigned long long seed = 88172645463325252ULL;
	char org[64];

	pages = argc > 3 ? atoi(argv[3]) : 100;
	if (accounts <= 0)
		return 2;
	printf("reasons:\n  staff: { academic: {}, professional: {} }\n"
	    "  student: { undergrad: {}, postgrad: { research: {}, coursework: {} } }\n  visitor: {}\n");
	printf("organisations:\n");
	for (f = 0; f < 5; f++) {
		printf("  f%d:\n", f);
		for (s = 0; s < 4; s++) {
			printf("    s%d: {", s);
			for (g = 0; g < 10; g++)
				printf("%s g%d: {}", g ? "," : "", g);
			printf(" }\n");
		}
	}
	printf("grants:\n");
	for (f = 0; f < 5; f++)
		for (s = -1; s < 4; s++)
			for (g = -1; g < (s < 0 ? 0 : 10); g++) {
				int n = snprintf(org, sizeof(org), "f%d", f);

				if (s >= 0)
					n += snprintf(org + n, sizeof(org) - n, "/s%d", s);
				if (g >= 0)
					snprintf(org + n, sizeof(org) - n, "/g%d", g);
				printf("  \"student@%s\": { print.pages: %d, printer.access: [+lab-f%d-%d-%d] }\n",
				    org, pages + 10 * s + g, f, s, g);
				printf("  \"staff@%s\": { print.pages: %d, print.colour: true }\n", org,
				    10 * pages + g);
				printf("  \"student/undergrad@%s\": { printer.access: [+ug-f%d] }\n", org, f);
				if (g >= 0 && g % 2 == 0)
					printf("  \"student/postgrad@%s\": { print.colour_pages: %d }\n", org,
					    20 + g);
			}
	printf("accounts:\n  jdoe: [student/undergrad@f0/s0/g0]\n");
	for (i = 0; i < accounts; i++) {
		unsigned r;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		r = (unsigned)(seed % 1000000);
		printf("  %s%06d: [%s@f%u/s%u/g%u", prefix, i, r % 3 == 2 ? "student/postgrad/research" : "student/undergrad",
		    r % 5, (r / 5) % 4, (r / 20) % 10);
		if (r % 7 == 0)
			printf(", staff/academic@f%u/s%u", (r / 200) % 5, (r / 1000) % 4);
		printf("]\n");
	}
	return 0;
}
