/* fuzz_import.c - libFuzzer target: the import parser and its checks on any bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cfg *c;
	static const char *const reasons[] = { "staff", "staff/academic" };
	static const char *const orgs[] = { "engineering" };
	struct import_doc d;
	struct err e;

	if (c == NULL && (c = fx_cfg()) == NULL)
		abort();
	memset(&d, 0, sizeof(d));
	if (import_parse(c, (const char *)data, size, &d, &e) == 0) {
		import_check(c, &d, reasons, 2, orgs, 1, &e);
		import_free(&d);
	}
	return 0;
}
