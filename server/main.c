/* main.c - privd: start, signals, and the one-shot commands (check-config, import, hash-key). */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "apply.h"
#include "change.h"
#include "auth.h"
#include "cfglive.h"
#include "config.h"
#include "dirconf.h"
#include "expiry.h"
#include "mend.h"
#include "merge.h"
#include "modeltest.h"
#include "http.h"
#include "routes.h"
#include "import.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "ledger.h"
#include "fault.h"
#include "log.h"
#include "notice.h"
#include "publish.h"
#include "period.h"
#include "rfile.h"
#include "retention.h"
#include "segids.h"
#include "service.h"
#include "skew.h"
#include "snapshot.h"
#include "sync.h"
#include "token.h"
#include "usage.h"

#define PRIVD_VERSION "0.1.0"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: privd [-c FILE] [-l HOST:PORT] [-L LDAP_URI] [-d]\n"
	    "       privd [-c FILE] --check-config\n"
	    "       privd [-c FILE] --import FILE.yaml [--dry-run]   (again: finishes an interrupted one)\n"
	    "       privd [-c FILE] --abort-import ID\n"
	    "       privd [-c FILE] --check-ledger [--repair]\n"
	    "       privd [-c FILE] --check-entitlements      (exit 0 agree, 1 differ, 3 unreachable)\n"
	    "       privd [-c FILE] --purge-ledgers             (ledger.retention, now)\n"
	    "       privd [-c FILE] --check-directory          (preflight: exit 0 ok, 1 fault, 3 unreachable)\n"
	    "       privd [-c FILE] setup-directory [--dry-run] [--bind-dn DN --bind-password-file F]\n"
	    "       privd [-c FILE] --directory-config ldif|slapd.conf [--database DN] [--admins DN]\n"
	    "       privd [-c FILE] test TEST.yaml   (a model test: exit 0 pass, 1 fail, 2 bad test)\n"
	    "       privd hash-key [KEY]        (reads KEY from stdin when absent)\n"
	    "       privd --version\n"
	    "\n"
	    "  -c FILE        configuration (default /etc/privd/privd.yaml)\n"
	    "  -l HOST:PORT   listen here instead of http.listen\n"
	    "  -L URI         use this LDAP URI instead of ldap.uri\n"
	    "  -W URIS        send writes here instead of ldap.write_uri (several: \"URI1 URI2\")\n"
	    "  -d             debug logging\n");
}

static int
hash_key(int argc, char **argv)
{
	char line[1024], hex[65];
	const char *key;
	size_t n;

	if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
		printf("usage: privd hash-key [KEY]   (reads KEY from stdin when absent; "
		    "privd hash-key -- KEY for a key that starts with -)\n");
		return 0;
	}
	if (argc > 2 && argv[2][0] == '-' && strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "privd: hash-key: unknown option %s (a key that starts with - "
		    "follows --)\n", argv[2]);
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "--") == 0)
		argv++, argc--;
	if (argc > 3) {
		fprintf(stderr, "privd: hash-key: one key at a time\n");
		return 2;
	}
	if (argc > 2) {
		key = argv[2];
	} else {
		if (fgets(line, sizeof(line), stdin) == NULL) {
			fprintf(stderr, "privd: hash-key: no key on stdin\n");
			return 2;
		}
		n = strlen(line);
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		key = line;
	}
	if (*key == '\0') {
		fprintf(stderr, "privd: hash-key: empty key\n");
		return 2;
	}
	auth_hash_hex(key, hex);
	/* the hash, and the line keys: takes (name and scopes to fill in) */
	printf("sha256: %s\n", hex);
	printf("keys line: - { name: NAME, sha256: %s, scopes: [read, charge] }\n", hex);
	explicit_bzero(line, sizeof(line));
	return 0;
}

static int
import_file(const struct cfg *c, const char *path, int dry_run)
{
	struct apply_summary sum;
	struct import_doc doc;
	struct chg_req rq;
	struct err e;
	int rc;
	char *buf = NULL, why[200];
	size_t len = 0;

	if (rfile_read(path, RFILE_IMPORT_MAX, &buf, &len, why, sizeof(why)) != 0) {
		fprintf(stderr, "privd: %s: %s\n", path, why);
		return 1;
	}
	if (import_parse(c, buf ? buf : "", len, &doc, &e) != 0) {
		fprintf(stderr, "%s:%d: %s\n", path, e.line, e.msg);
		free(buf);
		return 1;
	}
	rq.what = "import";
	rq.actor = "privd --import";
	rq.body = buf ? buf : "";
	rq.len = len;
	rc = apply_import(c, &doc, dry_run, NULL, NULL, &rq, &sum, &e);
	free(buf);
	import_free(&doc);
	if (rc != 0) {
		if (e.line)
			fprintf(stderr, "%s:%d: %s\n", path, e.line, e.msg);
		else
			fprintf(stderr, "privd: import: %s\n", e.msg);
		return e.code == ERR_UNAVAILABLE ? 3 : 1;
	}
	if (sum.import_id[0])
		printf("%s: import %s %s\n", path, sum.import_id, sum.resumed ? "resumed and finished" :
		    "finished");
	printf("%s%s: %zu reasons, %zu organisations and %zu cells added; %zu cells "
	    "changed; %zu accounts changed, %zu created\n", path,
	    dry_run ? " (dry run, nothing written)" : "", sum.reasons_added,
	    sum.orgs_added, sum.cells_added, sum.cells_changed, sum.accounts_changed,
	    sum.accounts_created);
	if (sum.printers_changed)
		printf("%s: %zu printers' rate cards added or changed\n", path, sum.printers_changed);
	apply_summary_free(&sum);
	return 0;
}

/* privd --abort-import ID: writes back what an open import changed. */
static int
abort_import(const struct cfg *c, const char *id)
{
	struct chg_result res;
	struct err e;
	LDAP *ld = NULL;
	int rc;

	memset(&e, 0, sizeof(e));
	if (ldapc_open_write(c, NULL, NULL, &ld, &e) != 0) {
		fprintf(stderr, "privd: abort-import: %s\n", e.msg);
		return 3;
	}
	rc = chg_abort(ld, c, id, &res, &e);
	ldapc_close(ld);
	if (rc != 0) {
		fprintf(stderr, "privd: abort-import: %s\n", e.msg);
		return e.code == ERR_UNAVAILABLE ? 3 : 1;
	}
	printf("import %s aborted (%zu writes)\n", id, res.writes);
	return 0;
}

/* setup-directory: privd's subtree, as the configured bind or --bind-dn. */
static int
setup_directory(const struct cfg *c, int dry_run)
{
	struct err e;
	LDAP *ld = NULL;
	int rc;

	memset(&e, 0, sizeof(e));
	if (ldapc_open_write(c, NULL, NULL, &ld, &e) != 0) {
		fprintf(stderr, "privd: setup-directory: %s\n", e.msg);
		return 3;
	}
	rc = dirconf_setup(ld, c, dry_run, stdout, &e);
	ldapc_close(ld);
	if (rc != 0) {
		fprintf(stderr, "privd: setup-directory: %s\n", e.msg);
		return e.code == ERR_UNAVAILABLE ? 3 : 1;
	}
	return 0;
}

/* --bind-dn and --bind-password-file: another bind for setup-directory. */
static int
override_bind(struct cfg *c, const char *dn, const char *pwfile)
{
	char line[512], *buf, why[200];
	size_t n;

	line[0] = '\0';
	if (pwfile != NULL) {
		if (rfile_read(pwfile, RFILE_SECRET_MAX, &buf, &n, why, sizeof(why)) != 0) {
			fprintf(stderr, "privd: %s: %s\n", pwfile, why);
			return -1;
		}
		/* the first line */
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(buf, "\r\n"), buf);
		explicit_bzero(buf, n);
		free(buf);
	}
	free(c->bind_dn);
	if (c->bind_password)
		explicit_bzero(c->bind_password, strlen(c->bind_password));
	free(c->bind_password);
	c->bind_dn = strdup(dn);
	c->bind_password = strdup(line);
	explicit_bzero(line, sizeof(line));
	return c->bind_dn && c->bind_password ? 0 : -1;
}

/* One directory's check: a usage entry per line that is wrong, then a
 * summary; the faults, or -1 with e. */
static int
check_one_directory(const struct cfg *c, const char *uri, int fix, struct strmap *digests,
    struct err *e)
{
	LDAP *ld = NULL, *seg_ld = NULL, *wld = NULL;
	int n = -1;

	/* segments on a connection of their own: the paged search keeps its place */
	if (uri != NULL) {
		if (ldapc_open_uri(c, uri, &ld, e) != 0 || ldapc_open_uri(c, uri, &seg_ld, e) != 0 ||
		    (fix && ldapc_open_uri(c, uri, &wld, e) != 0))
			goto done;
	} else if ((fix ? ldapc_open_write : ldapc_open)(c, NULL, NULL, &ld, e) != 0 ||
	    (fix ? ldapc_open_write : ldapc_open)(c, NULL, NULL, &seg_ld, e) != 0 ||
	    (fix && ldapc_open_write(c, NULL, NULL, &wld, e) != 0))
		goto done;
	/* with --repair, what the compare sees is the check after it */
	n = ledger_check(ld, seg_ld, wld, c, stdout, fix ? NULL : digests, e);
	if (n >= 0 && fix && (n > 0 || digests != NULL))
		n = ledger_check(ld, seg_ld, NULL, c, stdout, digests, e);
done:
	ldapc_close(wld);
	ldapc_close(seg_ld);
	ldapc_close(ld);
	return n;
}

/*
 * privd --check-ledger [--repair]: exit 0 when every counter matches its
 * ledger. With several providers in ldap.write_uri, each is checked and
 * then compared with the first: every usage entry one lacks, or holds with
 * other counters or another ledger, is named. With --repair: with several
 * providers, first each is given the ledger values another holds and it
 * lacks (merge.h); then on each, counters that differ from their ledgers
 * are set to what the ledgers say, and it checks again.
 */
static int
run_check_ledger(const struct cfg *c, int fix)
{
	const char *uris[CFG_PROVIDERS_MAX];
	struct strmap d[CFG_PROVIDERS_MAX];
	char *copy = c->write_uri ? strdup(c->write_uri) : NULL;
	size_t np = copy ? ldpool_split(copy, uris) : 0, i;
	int n = 0, rc = 0, down = 0;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (np < 2) {
		n = check_one_directory(c, NULL, fix, NULL, &e);
		free(copy);
		if (n < 0) {
			fprintf(stderr, "privd: check-ledger: %s\n", e.msg);
			return 3;
		}
		return n == 0 ? 0 : 1;
	}
	if (fix) {
		printf("merging the ledgers of %zu providers:\n", np);
		if ((n = merge_ledgers(c, uris, np, stdout, &e)) < 0) {
			fprintf(stderr, "privd: check-ledger: %s\n", e.msg);
			free(copy);
			return 3;
		}
		printf("%s: ledgers merged, %d entr%s not\n", n ? "FAILED" : "ok", n,
		    n == 1 ? "y" : "ies");
		rc += n;
	}
	for (i = 0; i < np; i++) {
		strmap_init(&d[i]);
		printf("provider %s:\n", uris[i]);
		memset(&e, 0, sizeof(e));
		if ((n = check_one_directory(c, uris[i], fix, &d[i], &e)) < 0) {
			fprintf(stderr, "privd: check-ledger: %s: %s\n", uris[i], e.msg);
			down = 1;
		} else
			rc += n;
	}
	for (i = 1; i < np && !down; i++) {
		n = ledger_compare(uris[0], &d[0], uris[i], &d[i], stdout);
		printf("%s: %s and %s %s (%d difference%s)\n", n ? "FAILED" : "ok", uris[0], uris[i],
		    n ? "differ" : "agree", n, n == 1 ? "" : "s");
		rc += n;
	}
	for (i = 0; i < np; i++)
		ledger_digests_free(&d[i]);
	free(copy);
	return down ? 3 : rc == 0 ? 0 : 1;
}

/* The command line's settings, over the file's at start and at each reload. */
static struct {
	const char *listen, *uri, *wuri, *bind_dn, *bind_pw_file;
	int debug;	/* -d: debug lines whatever log.level says */
} over;

static int override_listen(struct cfg *c, const char *arg);

/* 0, or -1 with the reason in why. */
static int
overrides(struct cfg *c, char *why, size_t n)
{
	if (over.listen != NULL && override_listen(c, over.listen) != 0) {
		snprintf(why, n, "-l %s: expected HOST:PORT", over.listen);
		return -1;
	}
	if (over.listen != NULL && c->development && !cfg_loopback(c->listen_host)) {
		snprintf(why, n, "-l %s: development: true listens on loopback only", over.listen);
		return -1;
	}
	if (over.uri != NULL) {
		free(c->ldap_uri);
		if ((c->ldap_uri = strdup(over.uri)) == NULL)
			goto oom;
	}
	if (over.wuri != NULL) {
		free(c->write_uri);
		if ((c->write_uri = strdup(over.wuri)) == NULL)
			goto oom;
	}
	if (over.bind_dn != NULL && override_bind(c, over.bind_dn, over.bind_pw_file) != 0) {
		snprintf(why, n, "--bind-dn %s: cannot use it", over.bind_dn);
		return -1;
	}
	return 0;
oom:
	snprintf(why, n, "out of memory");
	return -1;
}

static void
restart_needed(const char *what)
{
	log_warn("reload: %s changed: it takes a restart; the value started with stays in force",
	    what);
}

/*
 * SIGHUP (systemctl reload privd): the configuration read again, whole.
 * Keys, terms, HTTP limits, the web page, notices and the log change now,
 * without dropping a connection or the snapshot; a setting that waits for
 * a restart is named; a file that does not load changes nothing (nginx).
 */
static void
reload(const char *path)
{
	const struct cfg *in;
	struct cfg *n = NULL;
	struct err e;
	char why[300];
	int terms;

	svc_reloading();
	memset(&e, 0, sizeof(e));
	if (cfg_load(path, &n, &e) != 0) {
		if (e.line)
			log_warn("reload: %s:%d: %s; the configuration in force is kept", path,
			    e.line, e.msg);
		else
			log_warn("reload: %s: %s; the configuration in force is kept", path, e.msg);
		goto done;
	}
	if (overrides(n, why, sizeof(why)) != 0) {
		log_warn("reload: %s; the configuration in force is kept", why);
		cfg_free(n);
		goto done;
	}
	in = cfglive_get();
	terms = n->nterms != in->nterms;
	for (size_t i = 0; !terms && i < n->nterms; i++)
		terms = strcmp(n->terms[i].name, in->terms[i].name) != 0 ||
		    n->terms[i].start != in->terms[i].start || n->terms[i].end != in->terms[i].end;
	/* the reload's own lines in the format it sets */
	log_set_json(n->log_json);
	if (cfglive_reload(n, restart_needed, &e) != 0) {
		log_set_json(in->log_json);
		log_warn("reload: %s; the configuration in force is kept", e.msg);
		goto done;
	}
	in = cfglive_get();
	log_set_debug(in->log_debug || over.debug);
	if (token_use(in) != 0)
		log_warn("reload: out of memory for ui.token_key and ui.admins: the ones before "
		    "stay in force");
	if (terms)
		sync_rebuild();
	log_info("reload: %s read: %zu keys, %zu terms%s, ui and notify settings, HTTP limits "
	    "and the log in force", path, in->nkeys, in->nterms, terms ? " (changed)" : "");
done:
	svc_reloaded();
}

/* --check-config with several providers: the order homes are counted in,
 * which every privd on them must print the same. 0, or -1 (said). */
static int
print_homes(const struct cfg *c)
{
	const char *uris[CFG_PROVIDERS_MAX];
	struct err e;
	char *copy;
	size_t n;
	int rc = 0;

	if (c->write_uri == NULL || (copy = strdup(c->write_uri)) == NULL)
		return 0;
	n = ldpool_split(copy, uris);
	free(copy);
	if (n < 2)
		return 0;
	memset(&e, 0, sizeof(e));
	if (ldpool_init(c, 1) != 0 || ldpool_start(&e) != 0) {
		fprintf(stderr, "privd: %s\n", e.msg[0] ? e.msg : "out of memory");
		rc = -1;
	} else
		ldpool_describe(stdout);
	ldpool_free();
	return rc;
}

/* privd --purge-ledgers: ledger.retention applied now, each entry said. */
static int
run_purge(const struct cfg *c)
{
	struct err e;
	long n;

	memset(&e, 0, sizeof(e));
	if (c->ledger_retention <= 0) {
		fprintf(stderr, "privd: purge-ledgers: ledger.retention is not set: every ledger "
		    "is kept\n");
		return 1;
	}
	if ((n = retention_purge(c, period_now(), stdout, &e)) < 0) {
		fprintf(stderr, "privd: purge-ledgers: %s\n", e.msg);
		return e.code == ERR_UNAVAILABLE ? 3 : 1;
	}
	printf("%ld ledger%s removed (periods older than the newest %d)\n", n, n == 1 ? "" : "s",
	    c->ledger_retention);
	return 0;
}

static int
override_listen(struct cfg *c, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char *end;
	long port;

	if (colon == NULL || colon == arg)
		return -1;
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		return -1;
	free(c->listen_host);
	c->listen_host = strndup(arg, colon - arg);
	c->listen_port = (int)port;
	return c->listen_host ? 0 : -1;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check-config", no_argument, NULL, 'C' },
		{ "import", required_argument, NULL, 'I' },
		{ "abort-import", required_argument, NULL, 'A' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "check-ledger", no_argument, NULL, 'K' },
		{ "check-entitlements", no_argument, NULL, 'E' },
		{ "purge-ledgers", no_argument, NULL, 'R' },
		{ "repair", no_argument, NULL, 'F' },
		{ "check-directory", no_argument, NULL, 'P' },
		{ "setup-directory", no_argument, NULL, 'S' },
		{ "directory-config", required_argument, NULL, 'G' },
		{ "database", required_argument, NULL, 'B' },
		{ "admins", required_argument, NULL, 'a' },
		{ "bind-dn", required_argument, NULL, 'D' },
		{ "bind-password-file", required_argument, NULL, 'y' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *path = "/etc/privd/privd.yaml", *listen = NULL, *uri = NULL;
	const char *import = NULL, *wuri = NULL, *abort_id = NULL, *dirconf_form = NULL;
	const char *bind_dn = NULL, *bind_pw_file = NULL;
	struct dirconf_site site = { NULL, NULL };
	int check_dir = 0, setup_dir = 0;
	const char *offset;
	int ch, check = 0, dry_run = 0, check_ledger = 0, check_ent = 0, purge = 0, fix = 0;
	int sig, rc = 1;
	char why[300];
	struct cfg *c = NULL;
	struct err e;
	sigset_t set;

	/*
	 * glibc raises its mmap threshold each time a mapped block is freed,
	 * up to 32 MB: after the first snapshot is replaced, the next one's
	 * large arrays come from the heap instead, and calloc must then touch
	 * every page (a million accounts: 20 MB more at once, kept). A fixed
	 * threshold keeps them mapped, their untouched pages unbacked, and
	 * gives them back whole when freed.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	if (argc > 1 && strcmp(argv[1], "hash-key") == 0)
		return hash_key(argc, argv);
	while ((ch = getopt_long(argc, argv, "c:l:L:W:dh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': path = optarg; break;
		case 'l': listen = optarg; break;
		case 'L': uri = optarg; break;
		case 'W': wuri = optarg; break;
		case 'd': over.debug = 1; break;
		case 'C': check = 1; break;
		case 'I': import = optarg; break;
		case 'A': abort_id = optarg; break;
		case 'n': dry_run = 1; break;
		case 'K': check_ledger = 1; break;
		case 'E': check_ent = 1; break;
		case 'R': purge = 1; break;
		case 'F': fix = 1; break;
		case 'P': check_dir = 1; break;
		case 'S': setup_dir = 1; break;
		case 'G': dirconf_form = optarg; break;
		case 'B': site.database = optarg; break;
		case 'a': site.admins = optarg; break;
		case 'D': bind_dn = optarg; break;
		case 'y': bind_pw_file = optarg; break;
		case 'V': printf("privd %s\n", PRIVD_VERSION); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	/* privd [-c CONFIG] test FILE: a model test, no server, no directory */
	if (optind < argc && strcmp(argv[optind], "test") == 0) {
		if (optind != argc - 2) {
			fprintf(stderr, "usage: privd [-c CONFIG] test FILE\n");
			return 2;
		}
		return modeltest_run(argv[optind + 1], path, stdout);
	}
	/* "privd -c FILE setup-directory" reads as well as --setup-directory */
	if (optind == argc - 1 && strcmp(argv[optind], "setup-directory") == 0) {
		setup_dir = 1;
		optind++;
	}
	if (optind != argc || (fix && !check_ledger)) {
		usage(stderr);
		return 2;
	}
	memset(&e, 0, sizeof(e));
	if (cfg_load(path, &c, &e) != 0) {
		if (e.line)
			fprintf(stderr, "%s:%d: %s\n", path, e.line, e.msg);
		else
			fprintf(stderr, "%s: %s\n", path, e.msg);
		return 1;
	}
	over.listen = listen;
	over.uri = uri;
	over.wuri = wuri;
	if (overrides(c, why, sizeof(why)) != 0) {
		fprintf(stderr, "privd: %s\n", why);
		goto done;
	}
	log_set_json(c->log_json);
	log_set_debug(c->log_debug || over.debug);
	fault_init();
	/* before any thread: libcurl's global state (the notices' SMTP) */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if ((offset = getenv("PRIVD_CLOCK_OFFSET")) != NULL && *offset) {
		char *end;
		long sec;

		errno = 0;
		sec = strtol(offset, &end, 10);
		if (errno != 0 || (*end != '\0' && strcmp(end, ":site") != 0)) {
			fprintf(stderr, "privd: PRIVD_CLOCK_OFFSET=%s: not a whole number "
			    "of seconds (and :site)\n", offset);
			goto done;
		}
		period_set_offset(sec);
		/* :site: as if the directory's clock had moved as well (skew.h) */
		if (*end == ':')
			skew_shift_directory(sec);
		log_warn("PRIVD_CLOCK_OFFSET=%s: counting usage at a shifted time "
		    "(for tests only)", offset);
	}
	if (check) {
		printf("%s: OK (%zu privileges, %zu terms, %zu keys)\n", path, c->nprivs,
		    c->nterms, c->nkeys);
		rc = print_homes(c) == 0 ? 0 : 1;
		goto done;
	}
	over.bind_dn = bind_dn;
	over.bind_pw_file = bind_pw_file;
	if (bind_dn != NULL && override_bind(c, bind_dn, bind_pw_file) != 0)
		goto done;
	if (dirconf_form != NULL) {
		char buf[512];

		dirconf_defaults(c, &site, buf, sizeof(buf));
		if (dirconf_print(c, &site, dirconf_form, stdout) != 0) {
			fprintf(stderr, "privd: --directory-config: ldif or slapd.conf, not %s\n",
			    dirconf_form);
			rc = 2;
		} else
			rc = 0;
		goto done;
	}
	if (check_dir) {
		rc = dirconf_check(c, stdout);
		goto done;
	}
	if (setup_dir) {
		rc = setup_directory(c, dry_run);
		goto done;
	}
	if (abort_id != NULL) {
		rc = abort_import(c, abort_id);
		goto done;
	}
	if (import != NULL) {
		rc = import_file(c, import, dry_run);
		goto done;
	}
	if (check_ledger) {
		rc = run_check_ledger(c, fix);
		goto done;
	}
	if (check_ent) {
		rc = publish_check(c, stdout);
		goto done;
	}
	if (purge) {
		rc = run_purge(c);
		goto done;
	}

	/* signals are taken synchronously by this thread; the others never see them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (c->nkeys == 0)
		log_warn("no API keys configured: every /v1 request will be refused");
	cfglive_start(c);
	if (ldpool_init(c, c->threads * 2 + c->writers) != 0) {
		fprintf(stderr, "privd: out of memory\n");
		goto done;
	}
	if (ldpool_start(&e) != 0) {
		fprintf(stderr, "privd: %s\n", e.msg);
		goto done;
	}
	if (sync_start(c) != 0) {
		fprintf(stderr, "privd: cannot start the LDAP follower\n");
		goto done;
	}
	if (http_start(c, routes, routes_count, &e) != 0) {
		fprintf(stderr, "privd: %s\n", e.msg);
		sync_stop();
		goto done;
	}
	if (mend_start(c) != 0)
		log_warn("cannot start the thread that mends unlogged writes");
	if (notice_start(c) != 0)
		log_warn("cannot start the thread that sends notices");
	if (publish_start(c) != 0)
		log_warn("cannot start the thread that publishes entitlements");
	if (expiry_start(c) != 0)
		log_warn("cannot start the hold expiry thread");
	if (retention_start(c) != 0)
		log_warn("cannot start the ledger retention thread");
	log_info("privd %s listening on %s://%s:%d/, following %s", PRIVD_VERSION,
	    c->tls_cert ? "https" : "http",
	    c->listen_host, c->listen_port, c->ldap_uri);
	if (token_use(c) != 0) {
		fprintf(stderr, "privd: out of memory\n");
		goto done;
	}
	if (svc_start(c) != 0)
		log_warn("cannot start the thread that tells systemd privd's state");
	while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
		reload(path);
	log_info("signal %d: stopping", sig);
	svc_stop();
	if (http_stop() != 0) {
		/* an admin write is stuck in LDAP; its record stays open for the
		 * next run, and the threads still using the snapshot are not
		 * waited for */
		log_info("stopped (exit 0) with admin writes left open");
		_exit(0);
	}
	expiry_stop();
	publish_stop();
	notice_stop();
	mend_stop();
	retention_stop();
	sync_stop();
	snap_shutdown();
	usage_clear();
	segids_clear();
	rc = sync_fatal() ? 1 : 0;
	token_forget();
	log_info("stopped (exit %d)", rc);
done:
	ldpool_free();
	cfglive_stop();
	cfg_free(c);
	return rc;
}
