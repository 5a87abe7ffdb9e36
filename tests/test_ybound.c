/*
 * test_ybound.c - YAML that costs more than it weighs: alias bombs, deep
 * nesting and self-referencing aliases are refused, by line, before they
 * are loaded; shared lists a configuration might use still load; the same
 * bounds hold for privd's configuration and its imports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "config.h"
#include "fixture.h"
#include "import.h"
#include "ybound.h"

/* nine levels of nine aliases each: 9^9 nodes once expanded */
static char *
laughs(int levels)
{
	char *t = calloc(1, 4096), *p = t;
	int l, i;

	p += sprintf(p, "l0: &l0 [x, x, x, x, x, x, x, x, x]\n");
	for (l = 1; l < levels; l++) {
		p += sprintf(p, "l%d: &l%d [", l, l);
		for (i = 0; i < 9; i++)
			p += sprintf(p, "%s*l%d", i ? ", " : "", l - 1);
		p += sprintf(p, "]\n");
	}
	return t;
}

static void
alias_bomb_refused_at_its_line(void **state)
{
	char *t = laughs(9), msg[200];
	int line;

	(void)state;
	assert_int_equal(ybound_check(t, strlen(t), &line, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "aliases expand"));
	/* 9^5 = 59,049 nodes pass the bound first at line 5 (l4) */
	assert_true(line >= 4 && line <= 6);
	free(t);
}

static void
a_few_shared_lists_load(void **state)
{
	const char *t = "scopes: &rw [read, charge]\n"
	    "a: *rw\nb: *rw\nc: { s: *rw }\n";
	char msg[200];
	int line;

	(void)state;
	assert_int_equal(ybound_check(t, strlen(t), &line, msg, sizeof(msg)), 0);
	/* three levels of nine: 729 nodes, within the slack */
	{
		char *l3 = laughs(3);

		assert_int_equal(ybound_check(l3, strlen(l3), &line, msg, sizeof(msg)), 0);
		free(l3);
	}
}

static void
deep_nesting_refused_quickly(void **state)
{
	size_t n = 100000, i;
	char *t = malloc(2 * n + 2), msg[200];
	clock_t t0;
	int line;

	(void)state;
	for (i = 0; i < n; i++) {
		t[i] = '[';
		t[n + i] = ']';
	}
	t[2 * n] = '\n';
	t[2 * n + 1] = '\0';
	t0 = clock();
	assert_int_equal(ybound_check(t, 2 * n + 1, &line, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "nested more than 64"));
	assert_int_equal(line, 1);
	/* refused after a few thousand bytes, not after all of them (CPU time,
	 * generous for valgrind: unbounded takes tens of seconds) */
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
	free(t);
	/* 64 deep is allowed */
	{
		char ok[200];

		memset(ok, '[', 64);
		memset(ok + 64, ']', 64);
		ok[128] = '\0';
		assert_int_equal(ybound_check(ok, 128, &line, msg, sizeof(msg)), 0);
	}
}

static void
alias_inside_itself_refused(void **state)
{
	const char *t = "a: &a [1, *a]\n";
	const char *m = "x: 1\nb: &b { k: [*b] }\n";
	char msg[200];
	int line;

	(void)state;
	assert_int_equal(ybound_check(t, strlen(t), &line, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "inside the node it names"));
	assert_int_equal(ybound_check(m, strlen(m), &line, msg, sizeof(msg)), -1);
	assert_int_equal(line, 2);
}

static void
too_many_anchors_refused(void **state)
{
	size_t i, cap = (YBOUND_ANCHORS + 10) * 24;
	char *t = malloc(cap), *p = t, msg[200];
	int line;

	(void)state;
	for (i = 0; i < YBOUND_ANCHORS + 5; i++)
		p += sprintf(p, "k%zu: &a%zu v\n", i, i);
	assert_int_equal(ybound_check(t, (size_t)(p - t), &line, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "anchors"));
	assert_int_equal(line, YBOUND_ANCHORS + 1);
	free(t);
}

static void
configuration_and_import_use_the_bounds(void **state)
{
	char *bomb = laughs(9);
	struct import_doc doc;
	struct cfg *c = NULL;
	struct err e;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(cfg_parse(bomb, strlen(bomb), "bomb.yaml", &c, &e), -1);
	assert_non_null(strstr(e.msg, "aliases expand"));
	assert_true(e.line > 0);
	assert_non_null(c = fx_cfg());
	memset(&e, 0, sizeof(e));
	assert_int_equal(import_parse(c, bomb, strlen(bomb), &doc, &e), -1);
	assert_non_null(strstr(e.msg, "aliases expand"));
	cfg_free(c);
	free(bomb);
}

FX_MAIN("ybound",
    cmocka_unit_test(alias_bomb_refused_at_its_line),
    cmocka_unit_test(a_few_shared_lists_load),
    cmocka_unit_test(deep_nesting_refused_quickly),
    cmocka_unit_test(alias_inside_itself_refused),
    cmocka_unit_test(too_many_anchors_refused),
    cmocka_unit_test(configuration_and_import_use_the_bounds))
