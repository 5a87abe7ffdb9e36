/*
 * test_privctl.c - privctl against a real privd and slapd: every command,
 * its exit codes, --dry-run, the export/import round trip, refusals, and
 * human output that fits 80 columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

static char out[1 << 16], err[1 << 14];

/* Runs privctl with args; its exit status, stdout in out, stderr in err. */
static int __attribute__((format(printf, 1, 2)))
privctl(const char *fmt, ...)
{
	char args[2048], cmd[4096], errpath[256];
	const char *bin = getenv("PRIVCTL_BIN") ? getenv("PRIVCTL_BIN") : "client/privctl";
	va_list ap;
	size_t n;
	FILE *p, *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(errpath, sizeof(errpath), "%s/privctl.err", it_dir);
	snprintf(cmd, sizeof(cmd), "%s %s 2>%s", bin, args, errpath);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	err[0] = '\0';
	if ((f = fopen(errpath, "r")) != NULL) {
		n = fread(err, 1, sizeof(err) - 1, f);
		err[n] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
has(const char *text, const char *want)
{
	if (strstr(text, want) == NULL)
		fail_msg("expected '%s' in:\n%s", want, text);
}

static void
lacks(const char *text, const char *want)
{
	if (strstr(text, want) != NULL)
		fail_msg("did not expect '%s' in:\n%s", want, text);
}

/* Every line of s at most 80 characters (UTF-8 code points). */
static void
fits_80(const char *s)
{
	int col = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			col = 0;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80 && ++col > 80)
			fail_msg("a line is wider than 80 columns:\n%s", s - col + 1);
	}
}

static int
setup(void **state)
{
	if (it_group_setup(state) != 0)
		return -1;
	setenv("PRIVD_URL", it_http_base, 1);
	setenv("PRIVD_KEY", ADMIN_KEY, 1);
	/* no user config from the machine running the tests */
	setenv("XDG_CONFIG_HOME", it_dir, 1);
	return 0;
}

static void
import_dry_run_then_import(void **state)
{
	int before;

	(void)state;
	before = it_ldap_count(BASE, "(objectClass=*)");
	assert_int_equal(privctl("import config/demo.yaml --dry-run"), 0);
	has(out, "+ reason staff/academic");
	has(out, "+ cell student@");
	has(out, "~ account jdoe: +student/undergrad@engineering/cse/programs/compeng");
	has(out, "+ account vguest: +visitor@");
	has(out, "+ printer office-colour");
	has(out, "dry run, nothing written: 69 changes");
	assert_int_equal(it_ldap_count(BASE, "(objectClass=*)"), before);
	assert_int_equal(privctl("import config/demo.yaml"), 0);
	has(out, "69 changes");
	assert_true(it_ldap_count(BASE, "(objectClass=*)") > before);
	assert_int_equal(privctl("import config/demo.yaml --dry-run"), 0);
	has(out, "0 changes");
	/* a bad file names its line; nothing written */
	before = it_ldap_count(BASE, "(objectClass=*)");
	it_sh("printf 'grants:\\n  \"staff@\": { print.nothing: 1 }\\n' > %s/bad.yaml", it_dir);
	assert_int_equal(privctl("import %s/bad.yaml", it_dir), 1);
	has(err, "bad.yaml:2:");
	has(err, "print.nothing");
	assert_int_equal(it_ldap_count(BASE, "(objectClass=*)"), before);
}

static void
export_import_round_trip(void **state)
{
	(void)state;
	assert_int_equal(privctl("export %s/model.yaml", it_dir), 0);
	assert_int_equal(privctl("import %s/model.yaml --dry-run", it_dir), 0);
	has(out, "dry run, nothing written: 0 changes");
	assert_int_equal(privctl("export"), 0);
	has(out, "reasons:");
	has(out, "jdoe: [student/undergrad@engineering/cse/programs/compeng]");
}

static void
tree_draws_counts(void **state)
{
	(void)state;
	assert_int_equal(privctl("tree reasons"), 0);
	has(out, "├── staff  (0 members, 6 grants)");
	has(out, "│   ├── academic  (3 members, 1 grant)");
	has(out, "└── visitor  (1 member, 1 grant)");
	fits_80(out);
	assert_int_equal(privctl("tree organisations --json"), 0);
	json_decref(json_loads(out, 0, NULL));
	assert_non_null(strstr(out, "\"children\""));
	assert_int_equal(privctl("tree colours"), 2);
}

static void
grant_revoke_and_dry_run(void **state)
{
	(void)state;
	assert_int_equal(privctl("grant student/undergrad@science/physics print.pages=77 "
	    "printer.access+=phys-laser --dry-run"), 0);
	has(out, "+ organisation science/physics");
	assert_int_equal(privctl("tree organisations"), 0);
	lacks(out, "physics");
	assert_int_equal(privctl("grant student/undergrad@science/physics print.pages=77 "
	    "printer.access+=phys-laser"), 0);
	has(out, "+ cell student/undergrad@science/physics: +print.pages=77 +printer.access+=phys-laser");
	assert_int_equal(privctl("tree organisations"), 0);
	has(out, "physics  (0 members, 2 grants)");
	/* a grant replaces the same privilege only */
	assert_int_equal(privctl("grant student/undergrad@science/physics print.pages=88"), 0);
	has(out, "+print.pages=88 -print.pages=77");
	assert_int_equal(privctl("revoke student/undergrad@science/physics printer.access"), 0);
	has(out, "-printer.access+=phys-laser");
	assert_int_equal(privctl("revoke student/undergrad@nowhere print.pages"), 1);
	has(err, "unknown_cell");
	assert_int_equal(privctl("grant staff@ print.nothing=1"), 1);
	has(err, "print.nothing");
	assert_int_equal(privctl("grant staff@"), 2);
}

static void
memberships(void **state)
{
	(void)state;
	assert_int_equal(privctl("add jdoe student/undergrad@science/physics"), 0);
	has(out, "~ account jdoe: +student/undergrad@science/physics");
	assert_int_equal(privctl("show jdoe"), 0);
	has(out, "member of student/undergrad@science/physics");
	has(out, "print.pages            quota   300 of 300 left");
	fits_80(out);
	/* accounts sit only in leaf reasons */
	assert_int_equal(privctl("add jdoe student@science"), 1);
	has(err, "not a leaf");
	assert_int_equal(privctl("remove jdoe student/undergrad@science/physics"), 0);
	assert_int_equal(privctl("show jdoe"), 0);
	lacks(out, "science/physics");
	assert_int_equal(privctl("show nobody"), 1);
	has(err, "unknown_account");
}

static void
nodes_mkdir_mv_rmdir(void **state)
{
	(void)state;
	assert_int_equal(privctl("mkdir organisation science/chem"), 0);
	has(out, "+ organisation science/chem");
	assert_int_equal(privctl("add lgarcia student/undergrad@science/chem"), 0);
	assert_int_equal(privctl("mv organisation science/chem science/chemistry"), 0);
	has(out, "~ organisation science/chem -> science/chemistry");
	has(out, "~ cell student/undergrad@science/chem -> student/undergrad@science/chemistry");
	assert_int_equal(privctl("show lgarcia"), 0);
	has(out, "member of student/undergrad@science/chemistry");
	/* in use: refused, and named */
	assert_int_equal(privctl("rmdir organisation science/chemistry"), 1);
	has(err, "1 member (lgarcia)");
	assert_int_equal(privctl("rmdir organisation engineering"), 1);
	has(err, "in use");
	assert_int_equal(privctl("rmdir organisation nowhere"), 1);
	has(err, "no organisation node 'nowhere'");
	assert_int_equal(privctl("rmdir organisation science/chemistry --force --dry-run"), 0);
	has(out, "- organisation science/chemistry");
	assert_int_equal(privctl("show lgarcia"), 0);
	has(out, "science/chemistry");
	assert_int_equal(privctl("rmdir organisation science/chemistry --force"), 0);
	assert_int_equal(privctl("show lgarcia"), 0);
	lacks(out, "chemistry");
	assert_int_equal(privctl("tree organisations"), 0);
	lacks(out, "chemistry");
	assert_int_equal(privctl("mkdir colour x"), 2);
}

static void
show_explain_who(void **state)
{
	(void)state;
	assert_int_equal(privctl("explain jdoe printer.access"), 0);
	has(out, "printer.access = eng-laser");
	has(out, "applied    printer.access+=eng-laser on @engineering");
	fits_80(out);
	/* why can't the visitor print on eng-laser */
	assert_int_equal(privctl("explain vguest printer.access"), 0);
	has(out, "printer.access-=eng-laser on visitor@");
	assert_int_equal(privctl("explain vguest"), 0);
	fits_80(out);
	assert_int_equal(privctl("who printer.access eng-laser"), 0);
	has(out, "  @engineering");
	has(out, "  jdoe\n");
	lacks(out, "vguest");
	lacks(out, "visitor@");		/* it denies eng-laser: it grants nothing */
	assert_int_equal(privctl("who print.colour --json"), 0);
	has(out, "\"mwhite\"");
	assert_int_equal(privctl("who nothing.here"), 1);
	assert_int_equal(privctl("show jdoe --json"), 0);
	has(out, "\"account\":\"jdoe\"");
}

static void
quota_credit_ledger(void **state)
{
	(void)state;
	assert_int_equal(privctl("quota jdoe"), 0);
	has(out, "print.pages            300 of 300 left");
	assert_int_equal(privctl("credit jdoe print.pages 25 --reason thesis"), 0);
	has(out, "credited 25 to jdoe print.pages");
	assert_int_equal(privctl("quota jdoe print.pages"), 0);
	has(out, "325 of 325 left");
	assert_int_equal(privctl("ledger jdoe print.pages"), 0);
	has(out, "credit");
	has(out, "dev-admin");
	fits_80(out);
	assert_int_equal(privctl("credit jdoe print.pages lots"), 2);
	assert_int_equal(privctl("credit jdoe printer.access 5"), 1);
	/* a read key may not credit */
	assert_int_equal(privctl("--key " READ_KEY " credit jdoe print.pages 5"), 1);
	has(err, "forbidden");
}

/* The sum of charges minus refunds in a ledger, as the API lists it. */
static long long
ledger_sum(const char *uid)
{
	char path[256];
	json_t *j, *e;
	long long sum = 0;
	size_t i;

	snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/print.pages/ledger?limit=1000", uid);
	j = it_get(path, 200);
	json_array_foreach(json_object_get(j, "entries"), i, e) {
		const char *k = json_string_value(json_object_get(e, "kind"));
		long long a = json_integer_value(json_object_get(e, "amount"));

		sum += strcmp(k, "charge") == 0 ? a : strcmp(k, "refund") == 0 ? -a : 0;
	}
	json_decref(j);
	return sum;
}

static void
report_sums_ledgers(void **state)
{
	static const char *const who[] = { "jdoe", "bchen", "asmith", "mwhite", "kpatel" };
	char body[128], line[512], csvpath[256];
	long long ledgers = 0, rows = 0;
	size_t i;
	json_t *j;
	FILE *f;

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(body, sizeof(body), "{\"request_id\":\"rep-%zu\",\"amount\":%zu}", i,
		    3 * i + 2);
		snprintf(line, sizeof(line), "/v1/accounts/%s/quotas/print.pages/charges", who[i]);
		json_decref(it_call("POST", line, CHARGE_KEY, body, 201));
	}
	j = it_call("GET", "/v1/reports/usage?privilege=print.pages&depth=0", ADMIN_KEY, NULL, 200);
	for (i = 0; i < 9; i++) {
		static const char *const all[] = { "jdoe", "mwhite", "bchen", "kpatel", "rlee",
		    "tnguyen", "lgarcia", "vguest", "asmith" };

		ledgers += ledger_sum(all[i]);
	}
	/* the totals count each account once: they are the ledgers' sum */
	assert_int_equal(json_integer_value(json_object_get(j, "used")), ledgers);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts")), 9);
	json_decref(j);
	/* a read key may not; a bad depth names the field */
	json_decref(it_call("GET", "/v1/reports/usage?privilege=print.pages", READ_KEY, NULL, 403));
	j = it_call("GET", "/v1/reports/usage?privilege=print.pages&depth=x", ADMIN_KEY, NULL, 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "depth");
	json_decref(j);
	json_decref(it_call("GET", "/v1/reports/usage?privilege=print.colour", ADMIN_KEY, NULL, 404));

	/* the Head of School's row is the school's total, her own use apart */
	j = it_call("GET", "/v1/reports/usage?privilege=print.pages&depth=2", ADMIN_KEY, NULL,
	    200);
	{
		json_t *row;
		size_t k;
		int seen = 0;

		json_array_foreach(json_object_get(j, "rows"), k, row) {
			if (strcmp(json_string_value(json_object_get(row, "path")), "engineering") != 0)
				continue;
			seen = 1;
			assert_int_equal(json_integer_value(json_object_get(row, "own_used")),
			    ledger_sum("mwhite"));
			assert_true(json_integer_value(json_object_get(row, "used")) >=
			    ledger_sum("mwhite") + ledger_sum("jdoe") + ledger_sum("kpatel"));
		}
		assert_true(seen);
	}
	json_decref(j);
	assert_int_equal(privctl("report print.pages --by organisation --depth 2"), 0);
	has(out, "engineering/cse");
	has(out, "\u2588");	/* a bar */
	fits_80(out);
	assert_int_equal(privctl("report print.pages --by reason --top 3"), 0);
	has(out, "heaviest accounts:");
	has(out, "mwhite");
	/* CSV a CSV reader takes: its rows' own_used (a membership's own node:
	 * depth 0 keeps whole paths) add up to the ledgers of the accounts below
	 * engineering/cse */
	assert_int_equal(privctl("report print.pages --under engineering/cse --depth 0 --csv"), 0);
	snprintf(csvpath, sizeof(csvpath), "%s/report.csv", it_dir);
	assert_non_null(f = fopen(csvpath, "w"));
	fputs(out, f);
	fclose(f);
	snprintf(line, sizeof(line), "python3 -c 'import csv,sys; r=list(csv.DictReader(open(\"%s\")));"
	    " assert r and all(set(x) == {\"path\",\"accounts\",\"used\",\"limit\",\"credit\","
	    "\"held\",\"share\",\"own_accounts\",\"own_used\",\"paid_used\",\"topped_up\"} "
	    "for x in r), r; print(sum(int(x[\"own_used\"]) for x in r))'", csvpath);
	assert_non_null(f = popen(line, "r"));
	assert_non_null(fgets(body, sizeof(body), f));
	assert_int_equal(pclose(f), 0);
	rows = atoll(body);
	/* below engineering/cse: everyone here but mwhite (engineering) and
	 * asmith's science membership; bchen, a student in one course and a
	 * tutor in another, counts in both rows */
	assert_int_equal(rows, ledgers - ledger_sum("mwhite") + ledger_sum("bchen"));
}

static void
exit_codes_and_help(void **state)
{
	(void)state;
	assert_int_equal(privctl("--help"), 0);
	has(out, "Exit status");
	assert_int_equal(privctl("rmdir --help"), 0);
	has(out, "--force");
	assert_int_equal(privctl("frobnicate"), 2);
	assert_int_equal(privctl("show"), 2);
	assert_int_equal(privctl("--url http://127.0.0.1:1 show jdoe"), 3);
	has(err, "cannot reach privd");
	assert_int_equal(privctl("--key wrong show jdoe"), 1);
	has(err, "unauthorized");
	/* the config file, when flags and environment say nothing */
	unsetenv("PRIVD_KEY");
	it_sh("mkdir -p %s/privctl && printf 'key: %s\\n' > %s/privctl/config.yaml", it_dir,
	    READ_KEY, it_dir);
	assert_int_equal(privctl("show jdoe"), 0);
	it_sh("printf 'key: [1\\n' > %s/privctl/config.yaml", it_dir);
	assert_int_equal(privctl("show jdoe"), 2);
	has(err, "config.yaml:");
	setenv("PRIVD_KEY", ADMIN_KEY, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(import_dry_run_then_import),
		cmocka_unit_test(export_import_round_trip),
		cmocka_unit_test(tree_draws_counts),
		cmocka_unit_test(grant_revoke_and_dry_run),
		cmocka_unit_test(memberships),
		cmocka_unit_test(nodes_mkdir_mv_rmdir),
		cmocka_unit_test(show_explain_who),
		cmocka_unit_test(quota_credit_ledger),
		cmocka_unit_test(report_sums_ledgers),
		cmocka_unit_test(exit_codes_and_help),
	};

	return cmocka_run_group_tests_name("privctl", tests, setup, it_group_teardown);
}
