/* fuzz_config.c - libFuzzer target: the configuration parser on any bytes. */
#include <stddef.h>
#include <stdint.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg *c = NULL;
	struct err e;

	if (cfg_parse((const char *)data, size, "fuzz.yaml", &c, &e) == 0)
		cfg_free(c);
	return 0;
}
