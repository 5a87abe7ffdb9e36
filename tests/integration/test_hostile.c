/*
 * test_hostile.c - privd on a campus network full of students: slow,
 * idle and silent connection floods from one address and from fifty,
 * over the connection limit, ambiguous HTTP
 * framing, YAML bombs, sign-in guessing from alternating addresses,
 * sign-in tokens after an administrator is removed or the key rotated,
 * and SIGTERM in the middle of a 20,000-account import. A real privd on a
 * real slapd, with short deadlines (request_timeout 3 s) so that each
 * flood runs in seconds. Counts go to stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "harness.h"

#define REQUEST_TIMEOUT 3
#define IDLE_TIMEOUT 4
#define CONN_LIMIT 2500
#define PER_ADDRESS 256

static char cfg_dir[] = "/tmp/privd-hostile.XXXXXX";
static int http_port;

/* ---- floods ---- */

/* IDLE: one request answered, then the connection kept open and silent;
 * SLOW: a request line, then one header byte a second; SILENT: connected,
 * never a byte (the kernel holds these until they speak: privd's listening
 * socket defers accepting) */
enum { IDLE, SLOW, SILENT };

struct flood {
	int n;			/* connections */
	int naddr;		/* 1: all from 127.0.0.2; else 127.0.1.1 .. naddr */
	int mode;		/* IDLE, SLOW or SILENT, below */
	int reopen;		/* open again what privd closes */
	int seconds;
	/* results */
	long opened, closed, failed;
	long held;		/* privd's open connections while probed */
};

static int
open_one(const struct flood *f, int i)
{
	struct sockaddr_in src, dst;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	static const char line[] = "GET /healthz HTTP/1.1\r\nHost: privd\r\nX-Slow: ";
	static const char whole[] = "GET /healthz HTTP/1.1\r\nHost: privd\r\n\r\n";

	if (fd < 0)
		return -1;
	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	if (f->naddr == 1)
		inet_pton(AF_INET, "127.0.0.2", &src.sin_addr);
	else
		src.sin_addr.s_addr = htonl(0x7f000100u + 1u + (unsigned)(i % f->naddr));
	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons((uint16_t)http_port);
	inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) != 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) != 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (f->mode == SLOW)
		send(fd, line, sizeof(line) - 1, MSG_NOSIGNAL);
	else if (f->mode == IDLE)
		send(fd, whole, sizeof(whole) - 1, MSG_NOSIGNAL);
	return fd;
}

static void *
run_flood(void *arg)
{
	struct flood *f = arg;
	struct pollfd *p = calloc((size_t)f->n, sizeof(*p));
	long end = it_now_ms() + f->seconds * 1000L, next_byte = it_now_ms() + 1000;
	char buf[512];
	int i;

	for (i = 0; i < f->n; i++) {
		p[i].fd = open_one(f, i);
		p[i].events = POLLIN;
		if (p[i].fd >= 0)
			f->opened++;
		else
			f->failed++;
	}
	while (it_now_ms() < end) {
		poll(p, (nfds_t)f->n, 100);
		for (i = 0; i < f->n; i++) {
			ssize_t got;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = recv(p[i].fd, buf, sizeof(buf), 0);
			if (got > 0 || (got < 0 && errno == EAGAIN))
				continue;	/* an answer (408, 400): the close follows */
			close(p[i].fd);
			f->closed++;
			p[i].fd = f->reopen ? open_one(f, i) : -1;
			if (f->reopen && p[i].fd >= 0)
				f->opened++;
		}
		if (f->mode == SLOW && it_now_ms() >= next_byte) {
			next_byte += 1000;
			for (i = 0; i < f->n; i++)
				if (p[i].fd >= 0)
					send(p[i].fd, "a", 1, MSG_NOSIGNAL);
		}
	}
	for (i = 0; i < f->n; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	free(p);
	return NULL;
}

static int
it_import_open(void)
{
	long status;
	char *text = it_try_request("GET", "/readyz", NULL, NULL, 0, &status);
	int open = text != NULL && strstr(text, "\"import\"") != NULL;

	free(text);
	return open;
}

static int
by_value(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Reads of one account from 127.0.0.1, each on a new connection, while f
 * runs; the 99th percentile in ms, failed probes counted as 10 s. */
static long
probe_during(struct flood *f, int probes, long *failures)
{
	long *ms = calloc((size_t)probes, sizeof(*ms)), p99;
	pthread_t t;
	int i;

	*failures = 0;
	assert_int_equal(pthread_create(&t, NULL, run_flood, f), 0);
	usleep(1500 * 1000);	/* the flood is in place */
	for (i = 0; i < probes; i++) {
		long status, t0 = it_now_ms();
		char *text = it_try_request("GET", "/v1/accounts/jdoe/privileges", READ_KEY, NULL, 0,
		    &status);

		ms[i] = it_now_ms() - t0;
		if (text == NULL || status != 200) {
			ms[i] = 10000;
			(*failures)++;
		}
		free(text);
		usleep(30 * 1000);
	}
	f->held = it_metric("privd_http_connections_open ");
	pthread_join(t, NULL);
	qsort(ms, (size_t)probes, sizeof(*ms), by_value);
	p99 = ms[(probes * 99) / 100 - (probes * 99 % 100 == 0 ? 1 : 0)];
	fprintf(stderr, "hostile: %d %s connections from %d address%s (%ld opened, %ld closed by "
	    "privd, %ld held while probed): probe p50 %ld ms, p99 %ld ms, max %ld ms, %ld failed\n", f->n,
	    f->mode == SLOW ? "slow" : f->mode == IDLE ? "idle" : "silent", f->naddr, f->naddr == 1 ? "" : "es", f->opened, f->closed,
	    f->held, ms[probes / 2], p99, ms[probes - 1], *failures);
	free(ms);
	return p99;
}

/* A counter from /metrics (0 when absent). */
static long
metric(const char *line)
{
	long v = it_metric(line);

	return v < 0 ? 0 : v;
}

/* The timed-out counter of a flood's connections: slow ones wait on the
 * request deadline, idle ones on the connection's. */
static long
timed_out(int mode)
{
	return metric(mode == SLOW ? "privd_http_connections_timed_out_total{state=\"request\"} " :
	    "privd_http_connections_timed_out_total{state=\"idle\"} ");
}

/* 2,000 from one address: privd holds no more than its per-address limit,
 * closes those it holds by the clock, bytes trickling in or not, and a
 * client elsewhere is answered at once. */
static void
from_one_address(int mode)
{
	struct flood f = { 2000, 1, mode, 0, 7, 0, 0, 0, 0 };
	long refused0 = metric("privd_http_connections_refused_total{reason=\"per_address\"} ");
	long timed0 = timed_out(mode), failures, p99, refused, timed;

	p99 = probe_during(&f, 100, &failures);
	assert_int_equal(failures, 0);
	assert_true(p99 < 100);
	refused = metric("privd_http_connections_refused_total{reason=\"per_address\"} ") - refused0;
	timed = timed_out(mode) - timed0;
	fprintf(stderr, "hostile: %ld refused at accept, %ld closed at the %s deadline\n",
	    refused, timed, mode == SLOW ? "request" : "connection");
	/* (a connection still in the listen queue when the first ones reach
	 * their deadline is accepted in their place: refused may be below
	 * 2000 - PER_ADDRESS, never with fewer closed at the deadline) */
	assert_true(refused >= 1000);
	assert_true(refused + timed >= 2000 - 10);
	assert_int_equal(f.closed, f.opened);
	assert_true(it_ready());
}

/* 2,000 from fifty addresses, within the limits: each is closed at its
 * deadline, reopened, closed again, and a client elsewhere is answered. */
static void
from_fifty_addresses(int mode)
{
	struct flood f = { 2000, 50, mode, 1, 7, 0, 0, 0, 0 };
	long timed0 = timed_out(mode), failures, p99;

	p99 = probe_during(&f, 100, &failures);
	assert_int_equal(failures, 0);
	assert_true(p99 < 100);
	assert_true(timed_out(mode) - timed0 >= 2000);
	assert_true(f.closed >= 2000);
	assert_true(it_ready());
}

static void
slowloris_from_one_address(void **state)
{
	(void)state;
	from_one_address(SLOW);
}

static void
idle_from_one_address(void **state)
{
	(void)state;
	from_one_address(IDLE);
}

static void
slowloris_from_fifty_addresses(void **state)
{
	(void)state;
	from_fifty_addresses(SLOW);
}

static void
idle_from_fifty_addresses(void **state)
{
	(void)state;
	from_fifty_addresses(IDLE);
}

/* More than the connection limit, kept open after their answers: privd
 * closes the oldest to make room, and a new client gets in. */
static void
idle_over_the_limit(void **state)
{
	struct flood f = { CONN_LIMIT + 500, 50, IDLE, 0, 7, 0, 0, 0, 0 };
	long evicted0 = metric("privd_http_connections_evicted_total ");
	long failures, p99;

	(void)state;
	p99 = probe_during(&f, 100, &failures);
	assert_int_equal(failures, 0);
	assert_true(p99 < 100);
	assert_true(metric("privd_http_connections_evicted_total ") - evicted0 >= 500);
	assert_true(it_ready());
	/* once the flood has gone, privd holds nothing of it (no CLOSE-WAIT) */
	usleep(1500 * 1000);
	assert_true(metric("privd_http_connections_open ") < 20);
}

/* More than the connection limit that never send a byte, each reopened as
 * soon as it is closed: the kernel holds them until they speak, so privd
 * neither accepts nor evicts them, and a new client (who speaks at once)
 * is not queued behind them. */
static void
silent_over_the_limit_reopened(void **state)
{
	struct flood f = { CONN_LIMIT + 500, 50, SILENT, 1, 7, 0, 0, 0, 0 };
	long failures, p99;

	(void)state;
	p99 = probe_during(&f, 100, &failures);
	assert_int_equal(failures, 0);
	assert_true(p99 < 100);
	assert_true(f.held >= 0 && f.held < 100);
	assert_true(it_ready());
}

/* ---- framing ---- */

/* Sends raw bytes on a new connection; reads until privd closes or 5 s
 * pass. Returns what came back (caller frees); *closed when privd closed. */
static char *
raw_n(const char *bytes, size_t nbytes, int *closed)
{
	struct sockaddr_in dst;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t len = 0, cap = 65536;
	char *out = calloc(1, cap);
	long end = it_now_ms() + 5000;

	memset(&dst, 0, sizeof(dst));
	dst.sin_family = AF_INET;
	dst.sin_port = htons((uint16_t)http_port);
	inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&dst, sizeof(dst)), 0);
	assert_int_equal(send(fd, bytes, nbytes, MSG_NOSIGNAL), (ssize_t)nbytes);
	*closed = 0;
	while (it_now_ms() < end && len < cap - 1) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t got;

		if (poll(&p, 1, 200) <= 0)
			continue;
		got = recv(fd, out + len, cap - 1 - len, 0);
		if (got <= 0) {
			*closed = 1;
			break;
		}
		len += (size_t)got;
	}
	close(fd);
	return out;
}

static char *
raw(const char *bytes, int *closed)
{
	return raw_n(bytes, strlen(bytes), closed);
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

static void
ambiguous_framing_refused(void **state)
{
	static const char *const cases[] = {
		/* both: a proxy reads 5 bytes, privd would read chunks, then GET */
		"POST /v1/accounts/jdoe/quotas/print.pages/charges HTTP/1.1\r\nHost: x\r\n"
		"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
		"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		/* two different lengths */
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 40\r\n\r\n"
		"abcGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		/* the same length twice */
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n"
		"abcGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		/* a coding privd does not speak */
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n"
		"3\r\nabc\r\n0\r\n\r\n",
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc",
		/* whitespace before the colon: a proxy frames by chunks, libmicrohttpd
		 * took the header for another and framed by the length */
		"POST /v1/accounts/jdoe/quotas/print.pages/charges HTTP/1.1\r\nHost: x\r\n"
		"Content-Length: 5\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n"
		"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nContent-Length\t: 3\r\n\r\nabc",
		/* obs-fold, of a framing header and onto another's value */
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding:\r\n"
		" chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /v1/import HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nX-A: b\r\n"
		" Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		/* a fold onto a value, which libmicrohttpd takes in silence */
		"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n",
		/* control bytes in a value */
		"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x1b[2Jb\r\n\r\n",
		/* chunked at all, its lines ended by bare LFs or not: bodies are
		 * framed by Content-Length only */
		"POST /v1/tokens HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
		"2\n{}\n0\n\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /v1/tokens HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
		"2\r\n{}\r\n0\r\n\r\n",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int closed;
		long t0 = it_now_ms();
		char *got = raw(cases[i], &closed);

		if (strncmp(got, "HTTP/1.1 400", 12) != 0 || !closed || count(got, "HTTP/1.1") != 1 ||
		    strstr(got, "bad_framing") == NULL)
			fail_msg("framing case %zu: closed %d after %ld ms, answered: %.400s", i, closed,
			    it_now_ms() - t0, got);
		assert_true(it_now_ms() - t0 < 2000);
		free(got);
	}
	/* a NUL in a value, which libmicrohttpd cuts the value at */
	{
		static const char nul[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n";
		int closed;
		char *got = raw_n(nul, sizeof(nul) - 1, &closed);

		if (strncmp(got, "HTTP/1.1 400", 12) != 0 || !closed || strstr(got, "bad_framing") == NULL)
			fail_msg("a NUL in a header: closed %d, answered: %.300s", closed, got);
		free(got);
	}
	/* plain framing still works, keep-alive included */
	{
		int closed;
		char *got = raw("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
		    "POST /v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
		    &closed);

		assert_int_equal(count(got, "HTTP/1.1 "), 2);
		assert_non_null(strstr(got, "HTTP/1.1 200"));
		free(got);
	}
}

/* ---- sign-in ---- */

/* POST /v1/tokens from a source address; the token into tok when 200. */
static long
sign_in(const char *from, const char *uid, const char *pw, char tok[256])
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char url[128], body[256];
	long status = 0;
	FILE *mem;
	char *out = NULL;
	size_t outlen = 0;

	snprintf(url, sizeof(url), "%s/v1/tokens", it_http_base);
	snprintf(body, sizeof(body), "{\"uid\":\"%s\",\"password\":\"%s\"}", uid, pw);
	mem = open_memstream(&out, &outlen);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_INTERFACE, from);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, mem);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	fclose(mem);
	if (status == 200 && tok != NULL) {
		json_t *j = json_loads(out, 0, NULL);

		snprintf(tok, 256, "%s", json_string_value(json_object_get(j, "token")));
		json_decref(j);
	}
	free(out);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

static void
sign_in_limit_not_reset_by_another_address(void **state)
{
	int i, n401 = 0, n429 = 0;

	(void)state;
	/* two addresses taking turns: each keeps its own count */
	for (i = 0; i < 30; i++) {
		long st = sign_in(i % 2 ? "127.0.3.2" : "127.0.3.1", "mwhite", "wrong-guess", NULL);

		n401 += st == 401;
		n429 += st == 429;
	}
	fprintf(stderr, "hostile: 30 wrong passwords from two alternating addresses: %d x 401, "
	    "%d x 429\n", n401, n429);
	assert_int_equal(n401, 20);	/* ten each */
	assert_int_equal(n429, 10);
	/* the right password from either is refused for the rest of the minute */
	assert_int_equal(sign_in("127.0.3.1", "mwhite", "hos-dev-secret", NULL), 429);
	assert_int_equal(sign_in("127.0.3.2", "mwhite", "hos-dev-secret", NULL), 429);
	/* and a third address is not held to their count */
	assert_int_equal(sign_in("127.0.3.3", "mwhite", "hos-dev-secret", NULL), 200);
}

static void
sign_ins_share_a_rate(void **state)
{
	long t0 = it_now_ms();
	int i, limited = 0, answered = 0;
	char from[32];

	(void)state;
	/* 80 guesses, each from an address of its own, as fast as they go */
	for (i = 0; i < 80; i++) {
		long st;

		snprintf(from, sizeof(from), "127.0.4.%d", i + 1);
		st = sign_in(from, "mwhite", "wrong-guess", NULL);
		limited += st == 429;
		answered += st == 401;
	}
	fprintf(stderr, "hostile: 80 guesses from 80 addresses in %ld ms: %d tried, %d limited\n",
	    it_now_ms() - t0, answered, limited);
	/* a burst of 40, then 20 a second */
	assert_true(answered <= 40 + (it_now_ms() - t0) * 20 / 1000 + 1);
	assert_true(limited > 0);
	sleep(2);
}

static void
reload(const char *sed)
{
	char log[300];
	long pid;
	FILE *f;

	snprintf(log, sizeof(log), "%s/env/privd.pid", it_dir);
	assert_non_null(f = fopen(log, "r"));
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	it_sh("sed -i -e '%s' %s/privd.yaml", sed, cfg_dir);
	it_sh("grep -c 'reload:' %s/env/privd.log > %s/reloads 2>/dev/null || echo 0 > %s/reloads",
	    it_dir, cfg_dir, cfg_dir);
	assert_int_equal(kill((pid_t)pid, SIGHUP), 0);
	it_sh("for i in $(seq 1 100); do [ $(grep -c 'reload:' %s/env/privd.log) -gt $(cat %s/reloads) ] "
	    "&& exit 0; sleep 0.05; done; exit 1", it_dir, cfg_dir);
}

static void
tokens_follow_the_admins_the_key_and_the_directory(void **state)
{
	char tok[256], tok2[256];
	long st;
	char *t;

	(void)state;
	assert_int_equal(sign_in("127.0.0.1", "mwhite", "hos-dev-secret", tok), 200);
	t = it_request("GET", "/v1/export", tok, NULL, 0, &st);
	assert_int_equal(st, 200);
	free(t);
	/* removed from ui.admins, reloaded: the same token reads only its own */
	reload("s/^  admins: \\[mwhite\\]/  admins: []/");
	t = it_request("GET", "/v1/export", tok, NULL, 0, &st);
	assert_int_equal(st, 403);
	free(t);
	t = it_request("GET", "/v1/accounts/mwhite/privileges", tok, NULL, 0, &st);
	assert_int_equal(st, 200);
	free(t);
	/* a file that does not load changes nothing */
	reload("s/^  token_ttl: 900/  token_ttl: [nine]/");
	it_sh("grep -q 'the configuration in force is kept' %s/env/privd.log", it_dir);
	t = it_request("GET", "/v1/accounts/mwhite/privileges", tok, NULL, 0, &st);
	assert_int_equal(st, 200);
	free(t);
	/* a new key: every token signed with the old one is over */
	reload("s/^  token_ttl: \\[nine\\]/  token_ttl: 900/;"
	    "s/^  token_key: .*/  token_key: rotated-0123456789abcdef0123456789abcdef/");
	t = it_request("GET", "/v1/accounts/mwhite/privileges", tok, NULL, 0, &st);
	assert_int_equal(st, 401);
	free(t);
	/* a person gone from the directory: their token is refused */
	assert_int_equal(sign_in("127.0.0.1", "jdoe", "jdoe-dev-secret", tok2), 200);
	t = it_request("GET", "/v1/accounts/jdoe/privileges", tok2, NULL, 0, &st);
	assert_int_equal(st, 200);
	free(t);
	it_sh("ldapdelete -x -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret "
	    "uid=jdoe,ou=people,dc=example,dc=edu", it_ldap_port);
	it_sh("for i in $(seq 1 100); do curl -s -o /dev/null -w '%%{http_code}' -H "
	    "'Authorization: Bearer %s' %s/v1/accounts/jdoe/privileges | grep -q 404 && exit 0; "
	    "sleep 0.05; done; exit 1", READ_KEY, it_http_base);
	t = it_request("GET", "/v1/accounts/jdoe/privileges", tok2, NULL, 0, &st);
	assert_int_equal(st, 401);
	assert_non_null(strstr(t, "no longer in the directory"));
	free(t);
}

/* ---- who may read the ledgers in LDAP ---- */

/* Lines of an ldapsearch as who (password pw) under base containing what. */
static int
ldap_lines(const char *who, const char *pw, const char *base, const char *what)
{
	char cmd[1024], line[2048];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ldapsearch -x -LLL -o ldif-wrap=no -H ldap://127.0.0.1:%d/ "
	    "-D uid=%s,ou=people,dc=example,dc=edu -w %s -b %s 2>/dev/null", it_ldap_port, who, pw,
	    base);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p))
		n += strstr(line, what) != NULL;
	pclose(p);
	return n;
}

static void
a_person_reads_only_their_own_ledger(void **state)
{
	const char *usage = "uid=jdoe,ou=usage,ou=privileges,dc=example,dc=edu";
	json_t *j;

	(void)state;
	j = it_call("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"priv-1\",\"amount\":3,\"metadata\":{\"title\":\"alice-copies\","
	    "\"job\":\"41\"}}", 201);
	json_decref(j);
	/* jdoe reads her own usage entry and ledger; the title is hashed
	 * (ledger.titles: hash), the job kept */
	assert_true(ldap_lines("jdoe", "jdoe-dev-secret", usage, "privUsed:") >= 1);
	assert_true(ldap_lines("jdoe", "jdoe-dev-secret", usage, "\"job\":\"41\"") >= 1);
	assert_int_equal(ldap_lines("jdoe", "jdoe-dev-secret", usage, "alice-copies"), 0);
	assert_true(ldap_lines("jdoe", "jdoe-dev-secret", usage, "sha256:") >= 1);
	/* another person reads none of it, nor jdoe's memberships, nor imports */
	it_sh("printf 'dn: uid=bchen,ou=people,dc=example,dc=edu\\nchangetype: modify\\n"
	    "replace: userPassword\\nuserPassword: bchen-pw\\n' | ldapmodify -x -H "
	    "ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret > /dev/null", it_ldap_port);
	assert_int_equal(ldap_lines("bchen", "bchen-pw", usage, "dn:"), 0);
	assert_int_equal(ldap_lines("bchen", "bchen-pw", "ou=usage,ou=privileges,dc=example,dc=edu",
	    "privEntry"), 0);
	assert_int_equal(ldap_lines("bchen", "bchen-pw", "uid=jdoe,ou=people,dc=example,dc=edu",
	    "privMembership"), 0);
	assert_true(ldap_lines("jdoe", "jdoe-dev-secret", "uid=jdoe,ou=people,dc=example,dc=edu",
	    "privMembership") >= 1);
	assert_int_equal(ldap_lines("jdoe", "jdoe-dev-secret",
	    "ou=imports,ou=privileges,dc=example,dc=edu", "dn:"), 0);
	/* the model itself stays readable to people, as before */
	assert_true(ldap_lines("bchen", "bchen-pw", "ou=cells,ou=privileges,dc=example,dc=edu",
	    "dn:") >= 1);
	/* privd's own API still answers the ledger, title hashed */
	j = it_get("/v1/accounts/jdoe/quotas/print.pages/ledger", 200);
	{
		char *t = json_dumps(j, 0);

		assert_null(strstr(t, "alice-copies"));
		assert_non_null(strstr(t, "sha256:"));
		free(t);
	}
	json_decref(j);
}

/* 150 days on, a term later (the dev calendar's terms are at most four
 * months), with ledger.retention: 1: jdoe's ledger of this term goes, her
 * counters stay, and the ledger check still passes. */
static void
retention_removes_old_ledgers(void **state)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	long offset = 150L * 86400;
	char cmd[1024], usage[256];
	json_t *j;

	(void)state;
	j = it_get("/v1/accounts/jdoe/quotas/print.pages", 200);
	snprintf(usage, sizeof(usage), "cn=print.pages@%s,uid=jdoe,ou=usage,ou=privileges,"
	    "dc=example,dc=edu", json_string_value(json_object_get(j, "period")));
	json_decref(j);
	snprintf(cmd, sizeof(cmd), "PRIVD_CLOCK_OFFSET=%ld %s -c %s/privd.yaml -L ldap://127.0.0.1:%d/",
	    offset, bin, cfg_dir, it_ldap_port);
	it_sh("%s --purge-ledgers > %s/purge.out 2>&1 || { cat %s/purge.out >&2; exit 1; }", cmd,
	    cfg_dir, cfg_dir);
	it_sh("grep -q '^%s: ledger removed' %s/purge.out || { cat %s/purge.out >&2; exit 1; }",
	    usage, cfg_dir, cfg_dir);
	/* counters kept, ledger gone (read as the directory's administrator) */
	it_sh("ldapsearch -x -LLL -H ldap://127.0.0.1:%d/ -D cn=admin,dc=example,dc=edu -w secret "
	    "-b %s -s base > %s/entry.ldif && grep -q '^privUsed: 3' %s/entry.ldif && "
	    "! grep -q '^privEntry' %s/entry.ldif", it_ldap_port, usage, cfg_dir, cfg_dir, cfg_dir);
	/* again: nothing left to remove */
	it_sh("%s --purge-ledgers | grep -q '^0 ledgers removed'", cmd);
	it_sh("%s --check-ledger > %s/check.out 2>&1 && grep -q 'older than ledger.retention' "
	    "%s/check.out || { cat %s/check.out >&2; exit 1; }", cmd, cfg_dir, cfg_dir, cfg_dir);
	/* privd's own clock is still in 2026T3: the API answers the counters */
	assert_int_equal(it_number("/v1/accounts/jdoe/quotas/print.pages", "used"), 3);
}

/* ---- YAML bombs over HTTP ---- */

static long
rss_kb(void)
{
	char path[256], line[256];
	long pid = 0, kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/env/privd.pid", it_dir);
	assert_non_null(f = fopen(path, "r"));
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

static void
yaml_bombs_answer_400_at_once(void **state)
{
	char bomb[1024], *p = bomb, *deep;
	long st, t0, before = rss_kb();
	int l, i;
	char *t;

	(void)state;
	p += sprintf(p, "l0: &l0 [x, x, x, x, x, x, x, x, x]\n");
	for (l = 1; l < 9; l++) {
		p += sprintf(p, "l%d: &l%d [", l, l);
		for (i = 0; i < 9; i++)
			p += sprintf(p, "%s*l%d", i ? "," : "", l - 1);
		p += sprintf(p, "]\n");
	}
	t0 = it_now_ms();
	t = it_request("POST", "/v1/import?dry_run=1", ADMIN_KEY, bomb, strlen(bomb), &st);
	assert_int_equal(st, 400);
	assert_non_null(strstr(t, "aliases expand"));
	free(t);
	deep = malloc(200002);
	memset(deep, '[', 100000);
	memset(deep + 100000, ']', 100000);
	deep[200000] = '\n';
	deep[200001] = '\0';
	t = it_request("POST", "/v1/import?dry_run=1", ADMIN_KEY, deep, 200001, &st);
	assert_int_equal(st, 400);
	assert_non_null(strstr(t, "nested more than"));
	free(t);
	free(deep);
	fprintf(stderr, "hostile: alias bomb (%zu bytes) and 100,000-deep nesting: 400 in %ld ms, "
	    "RSS %ld -> %ld kB\n", strlen(bomb), it_now_ms() - t0, before, rss_kb());
	assert_true(it_now_ms() - t0 < 2000);
	assert_true(rss_kb() - before < 20 * 1024);
}

/* ---- the smaller items ---- */

static void
smaller_items(void **state)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	long t0;

	(void)state;
	/* hash-key --help is help, not a key */
	it_sh("%s hash-key --help | grep -q '^usage: privd hash-key'", bin);
	it_sh("! %s hash-key --help | grep -q sha256", bin);
	it_sh("%s hash-key -- -x | grep -q '^sha256: '", bin);
	/* the development secrets, outside development: true */
	it_sh("grep -v '^development: true' %s/privd.yaml > %s/nodev.yaml", cfg_dir, cfg_dir);
	it_sh("! %s -c %s/nodev.yaml --check-config > %s/nodev.out 2>&1 && grep -q "
	    "'development secrets published with privd' %s/nodev.out", bin, cfg_dir, cfg_dir, cfg_dir);
	it_sh("%s -c %s/privd.yaml --check-config > /dev/null", bin, cfg_dir);
	it_sh("! %s -c %s/privd.yaml -l 0.0.0.0:1 --check-config 2> %s/any.out && "
	    "grep -q 'loopback only' %s/any.out", bin, cfg_dir, cfg_dir, cfg_dir);
	/* StartTLS against a slapd without TLS: named, and given up at
	 * ldap.startup_timeout (1 s), not after a backoff past it */
	it_sh("sed 's/^  timeout: 5/  timeout: 5\\n  starttls: true\\n  startup_timeout: 1/' "
	    "%s/privd.yaml > %s/tls.yaml", cfg_dir, cfg_dir);
	t0 = it_now_ms();
	it_sh("! timeout 20 %s -c %s/tls.yaml -L ldap://127.0.0.1:%d/ -l 127.0.0.1:1 > %s/tls.out "
	    "2>&1; grep -q 'does not offer StartTLS.*giving up after 1 s' %s/tls.out || "
	    "{ cat %s/tls.out >&2; exit 1; }", bin, cfg_dir, it_ldap_port, cfg_dir, cfg_dir, cfg_dir);
	assert_true(it_now_ms() - t0 < 5000);
}

/* ---- SIGTERM during an import ---- */

struct posted {
	const char *body;
	size_t len;
	long status;
	char *text;
};

static void *
post_import(void *arg)
{
	struct posted *p = arg;

	p->text = it_try_request("POST", "/v1/import", ADMIN_KEY, p->body, p->len, &p->status);
	return NULL;
}

static void
sigterm_during_an_import(void **state)
{
	const char *pop = getenv("POPULATION_BIN") ? getenv("POPULATION_BIN") :
	    "build/release/bench/population";
	struct posted p = { NULL, 0, 0, NULL };
	char path[256], pidf[256];
	long pid = 0, t0, gone_ms;
	pthread_t t;
	json_t *j;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/pop.yaml", it_dir);
	it_sh("%s 20000 st 100 > %s", pop, path);
	p.body = it_slurp(path, &p.len);
	it_timeout_s = 600;
	assert_int_equal(pthread_create(&t, NULL, post_import, &p), 0);
	/* the import is writing: its record is open, and /readyz (no key)
	 * says so without naming who started it */
	assert_true(it_within(60000, it_import_open) >= 0);
	{
		long st;
		char *t = it_request("GET", "/readyz", NULL, NULL, 0, &st);

		assert_null(strstr(t, "actor"));
		assert_null(strstr(t, "dev-admin"));
		free(t);
	}
	usleep(300 * 1000);
	snprintf(pidf, sizeof(pidf), "%s/env/privd.pid", it_dir);
	assert_non_null(f = fopen(pidf, "r"));
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	t0 = it_now_ms();
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
	pthread_join(t, NULL);
	/* the client is told, and told what to do */
	if (p.text == NULL || p.status != 503 || strstr(p.text, "\"stopping\"") == NULL ||
	    strstr(p.text, "run it again") == NULL)
		fail_msg("the import answered %ld: %.300s", p.status, p.text ? p.text : "(nothing)");
	while (kill((pid_t)pid, 0) == 0 && it_now_ms() - t0 < 20000)
		usleep(20 * 1000);
	gone_ms = it_now_ms() - t0;
	fprintf(stderr, "hostile: SIGTERM during a 20,000-account import: answered %ld, privd gone "
	    "after %ld ms\n", p.status, gone_ms);
	assert_true(kill((pid_t)pid, 0) != 0);
	assert_true(gone_ms < 5000 + 2000);	/* shutdown_grace 5 */
	it_sh("grep -q 'stopped (exit 0)' %s/env/privd.log", it_dir);
	it_sh("! grep -q -e 'suspended connections' -e SIGABRT %s/env/privd.log", it_dir);
	/* the record is open; the same import again finishes it */
	it_sh("rm -f %s; tests/integration/env.sh privd-start %s/env", pidf, it_dir);
	free(p.text);
	j = it_call("POST", "/v1/import", ADMIN_KEY, p.body, 200);
	assert_true(json_is_true(json_object_get(j, "resumed")));
	json_decref(j);
	assert_true(it_ldap_count("ou=people,dc=example,dc=edu", "(uid=st*)") == 20000);
	free((char *)p.body);
	it_timeout_s = 20;
}

/* ---- setup ---- */

static int
setup(void **state)
{
	char top[1024], path[1200];
	struct rlimit rl;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 8192) {
		rl.rlim_cur = rl.rlim_max < 8192 ? rl.rlim_max : 8192;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (mkdtemp(cfg_dir) == NULL || getcwd(top, sizeof(top)) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/privd.yaml", cfg_dir);
	it_sh("sed -e 's|^  threads: 2|  threads: 2\\n  request_timeout: %d\\n  connection_timeout: %d"
	    "\\n  connection_limit: %d\\n  connections_per_address: %d\\n  shutdown_grace: 5|' "
	    "-e 's|^  dir: ../web|  dir: %s/web|' config/dev.yaml > %s && "
	    "printf 'ledger:\\n  titles: hash\\n  retention: 1\\n' >> %s",
	    REQUEST_TIMEOUT, IDLE_TIMEOUT, CONN_LIMIT, PER_ADDRESS, top, path, path);
	setenv("PRIVD_CONFIG", path, 1);
	if (it_group_setup(state) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/env/http_port", it_dir);
	if ((f = fopen(path, "r")) == NULL || fscanf(f, "%d", &http_port) != 1)
		return -1;
	fclose(f);
	json_decref(it_call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} }, staff: { academic: {} } }\n"
	    "organisations: { lab: {} }\n"
	    "grants:\n  \"student@\": { print.pages: 1000 }\n"
	    "accounts:\n  jdoe: [student/undergrad@lab]\n  mwhite: [staff/academic@lab]\n", 200));
	return 0;
}

static int
teardown(void **state)
{
	int rc = it_group_teardown(state);

	it_sh("rm -rf %s", cfg_dir);
	return rc;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ambiguous_framing_refused),
		cmocka_unit_test(slowloris_from_one_address),
		cmocka_unit_test(idle_from_one_address),
		cmocka_unit_test(slowloris_from_fifty_addresses),
		cmocka_unit_test(idle_from_fifty_addresses),
		cmocka_unit_test(idle_over_the_limit),
		cmocka_unit_test(silent_over_the_limit_reopened),
		cmocka_unit_test(yaml_bombs_answer_400_at_once),
		cmocka_unit_test(a_person_reads_only_their_own_ledger),
		cmocka_unit_test(retention_removes_old_ledgers),
		cmocka_unit_test(sign_in_limit_not_reset_by_another_address),
		cmocka_unit_test(sign_ins_share_a_rate),
		cmocka_unit_test(tokens_follow_the_admins_the_key_and_the_directory),
		cmocka_unit_test(smaller_items),
		cmocka_unit_test(sigterm_during_an_import),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
