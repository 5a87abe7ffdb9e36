/* test_export.c - export writes the import format: parsing it back gives the same model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export.h"
#include "fixture.h"
#include "import.h"

#define cfg fx_config

static int
has_path(const struct import_node *v, size_t n, const char *p)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].path, p) == 0)
			return 1;
	return 0;
}

static const struct import_cell *
cell(const struct import_doc *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->ncells; i++)
		if (strcmp(d->cells[i].name, name) == 0)
			return &d->cells[i];
	return NULL;
}

static int
has_grant(const struct import_cell *c, const char *text)
{
	size_t i;

	for (i = 0; c && i < c->ngrants; i++)
		if (strcmp(c->grants[i].text, text) == 0)
			return 1;
	return 0;
}

static void
round_trip(void **state)
{
	const char *reasons[] = { "staff", "staff/academic", "student", "student/undergrad", NULL };
	const char *orgs[] = { "engineering", "engineering/cse", "science", NULL };
	const char *cells[] = { "staff@|f=true|n=3|q=1000", "@engineering|s+=eng-laser",
	    "student/undergrad@engineering/cse|s+=cse-lab|s-=eng-laser|q=300",
	    "student/undergrad@science|f=false", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering/cse",
	    "asmith|staff/academic@engineering/cse|student/undergrad@science", "none", NULL };
	struct snap *s = fx_snap(cfg, reasons, orgs, cells, accts);
	struct import_doc d;
	struct err e;
	char *text = export_yaml(s);
	const struct import_cell *c;
	size_t i;
	int jdoe = 0, asmith = 0, none = 0;

	(void)state;
	assert_non_null(text);
	memset(&d, 0, sizeof(d));
	if (import_parse(cfg, text, strlen(text), &d, &e) != 0)
		fail_msg("the export does not import: line %d: %s\n%s", e.line, e.msg, text);
	assert_int_equal(d.nreasons, 4);
	assert_true(has_path(d.reasons, d.nreasons, "student/undergrad"));
	assert_int_equal(d.norgs, 3);
	assert_true(has_path(d.orgs, d.norgs, "engineering/cse"));
	assert_int_equal(d.ncells, 4);
	c = cell(&d, "staff@");
	assert_true(has_grant(c, "f=true") && has_grant(c, "n=3") && has_grant(c, "q=1000"));
	assert_int_equal(c->ngrants, 3);
	c = cell(&d, "student/undergrad@engineering/cse");
	assert_true(has_grant(c, "s+=cse-lab") && has_grant(c, "s-=eng-laser") && has_grant(c, "q=300"));
	assert_true(has_grant(cell(&d, "student/undergrad@science"), "f=false"));
	assert_true(has_grant(cell(&d, "@engineering"), "s+=eng-laser"));
	for (i = 0; i < d.naccounts; i++) {
		if (strcmp(d.accounts[i].uid, "jdoe") == 0)
			jdoe = d.accounts[i].ncells == 1 &&
			    strcmp(d.accounts[i].cells[0], "student/undergrad@engineering/cse") == 0;
		if (strcmp(d.accounts[i].uid, "asmith") == 0)
			asmith = d.accounts[i].ncells == 2;
		if (strcmp(d.accounts[i].uid, "none") == 0)
			none = d.accounts[i].ncells == 0;
	}
	assert_true(jdoe && asmith && none);
	import_free(&d);
	free(text);
	snap_free(s);
}

static void
empty_model(void **state)
{
	struct snap *s = fx_snap(cfg, NULL, NULL, NULL, NULL);
	char *text = export_yaml(s);
	struct import_doc d;
	struct err e;

	(void)state;
	assert_non_null(text);
	assert_int_equal(import_parse(cfg, text, strlen(text), &d, &e), 0);
	assert_int_equal(d.nreasons + d.norgs + d.ncells + d.naccounts, 0);
	import_free(&d);
	free(text);
	snap_free(s);
}

FX_GROUP("export", fx_setup, fx_teardown,
    cmocka_unit_test(round_trip),
    cmocka_unit_test(empty_model))
