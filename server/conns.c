/*
 * conns.c - the HTTP server's connections, held to the clock.
 *
 * libmicrohttpd's connection_timeout counts from the last byte, so a
 * client that sends one byte every few seconds is never closed, and its
 * limits do not say which connections to give up when the server is full.
 * Here each connection is in one of three states with a deadline measured
 * from when it entered it: waiting for a request (connection_timeout), in
 * the middle of reading one (request_timeout, headers and body together),
 * or with its handler (no deadline: an import may take minutes). A thread
 * closes what is past its deadline, and near the connection limit it
 * closes the waiting ones first, oldest first, so that a new client always
 * finds room. Addresses are counted so that one cannot hold more than
 * connections_per_address.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "cfglive.h"
#include "conns.h"
#include "log.h"
#include "worker.h"

enum { WAITING, READING, BUSY };

struct link {
	struct link *prev, *next;	/* oldest first */
	struct addr *addr;
	int fd;
	int state;
	int served;		/* requests answered on it */
	int shut;		/* closed by us; libmicrohttpd has yet to notice */
	struct timespec since;
};

struct addr {
	struct addr *next;
	unsigned char key[16];
	size_t klen;
	unsigned count;
};

#define ADDR_BUCKETS 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct link *head, *tail;
static struct addr *buckets[ADDR_BUCKETS];
static size_t nopen, nshut;
static const struct cfg *cfg;
static struct worker reaper = WORKER_INIT;

static atomic_ulong refused_address, refused_full, timed_out_idle, timed_out_request,
    evicted;

static size_t
key_of(const struct sockaddr *sa, unsigned char key[16])
{
	if (sa != NULL && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa != NULL && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 16;
	}
	memset(key, 0, 16);
	return 1;
}

static unsigned
hash(const unsigned char *k, size_t n)
{
	unsigned h = 2166136261u;

	while (n-- > 0)
		h = (h ^ *k++) * 16777619u;
	return h % ADDR_BUCKETS;
}

static struct addr *
addr_find(const unsigned char *k, size_t n)
{
	struct addr *a;

	for (a = buckets[hash(k, n)]; a != NULL; a = a->next)
		if (a->klen == n && memcmp(a->key, k, n) == 0)
			return a;
	return NULL;
}

static void
addr_put(struct addr *a)
{
	struct addr **pp;

	if (--a->count > 0)
		return;
	for (pp = &buckets[hash(a->key, a->klen)]; *pp != a; pp = &(*pp)->next)
		;
	*pp = a->next;
	free(a);
}

static double
age(const struct timespec *since, const struct timespec *now)
{
	return (double)(now->tv_sec - since->tv_sec) + (now->tv_nsec - since->tv_nsec) / 1e9;
}

/* Called with lock held. */
static void
shut(struct link *l)
{
	if (l->shut)
		return;
	l->shut = 1;
	nshut++;
	/* libmicrohttpd sees the end of the stream and closes it itself; the fd
	 * stays valid until its close notice, which takes this lock */
	shutdown(l->fd, SHUT_RDWR);
}

/*
 * Closes connections until no more than target remain: first those kept
 * alive after an answer, then any not with a handler, oldest first. A
 * client that has just connected is the newest, so it is the last to go.
 * Called with lock held.
 */
static void
evict(size_t target)
{
	int pass;
	struct link *l;

	for (pass = 0; pass < 2; pass++)
		for (l = head; l != NULL && nopen - nshut > target; l = l->next)
			if (!l->shut && l->state != BUSY && (pass == 1 || l->served > 0)) {
				shut(l);
				atomic_fetch_add(&evicted, 1);
			}
}

/* The limits in force: a reload changes them (cfglive.h). */
static const struct cfg *
limits(void)
{
	const struct cfg *c = cfglive_get();

	return c != NULL ? c : cfg;
}

static void
reap(struct worker *w)
{
	struct timespec now;
	struct link *l;

	do {
		const struct cfg *c = limits();

		pthread_mutex_lock(&lock);
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (l = head; l != NULL; l = l->next) {
			if (l->shut)
				continue;
			if (l->state == WAITING && age(&l->since, &now) > c->conn_timeout_s) {
				shut(l);
				atomic_fetch_add(&timed_out_idle, 1);
			} else if (l->state == READING &&
			    age(&l->since, &now) > c->request_timeout_s) {
				shut(l);
				atomic_fetch_add(&timed_out_request, 1);
			}
		}
		if (nopen - nshut > (size_t)c->conn_limit * 9 / 10)
			evict((size_t)c->conn_limit * 8 / 10);
		pthread_mutex_unlock(&lock);
	} while (!worker_sleep(w, 200));
}

int
conns_start(const struct cfg *c)
{
	cfg = c;
	return worker_start(&reaper, reap);
}

void
conns_stop(void)
{
	worker_stop(&reaper);
}

enum MHD_Result
conns_accept(void *cls, const struct sockaddr *sa, socklen_t len)
{
	unsigned char k[16];
	size_t n = key_of(sa, k);
	struct addr *a;
	enum MHD_Result ok = MHD_YES;
	const struct cfg *c = limits();

	(void)cls;
	(void)len;
	pthread_mutex_lock(&lock);
	if ((a = addr_find(k, n)) != NULL && a->count >= (unsigned)c->conns_per_addr) {
		atomic_fetch_add(&refused_address, 1);
		ok = MHD_NO;
	} else if (nopen - nshut >= (size_t)c->conn_limit) {
		/* full: make room now, or this client waits for the next pass */
		evict((size_t)c->conn_limit - 1);
		if (nopen - nshut >= (size_t)c->conn_limit) {
			atomic_fetch_add(&refused_full, 1);
			ok = MHD_NO;
		}
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

void
conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
    enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci;
	struct link *l;
	unsigned char k[16];
	size_t n;

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		if ((l = calloc(1, sizeof(*l))) == NULL)
			return;	/* untracked: still served, never reaped */
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		n = key_of(ci ? ci->client_addr : NULL, k);
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		l->fd = ci ? ci->connect_fd : -1;
		clock_gettime(CLOCK_MONOTONIC, &l->since);
		pthread_mutex_lock(&lock);
		if ((l->addr = addr_find(k, n)) == NULL &&
		    (l->addr = calloc(1, sizeof(*l->addr))) != NULL) {
			unsigned h = hash(k, n);

			memcpy(l->addr->key, k, n);
			l->addr->klen = n;
			l->addr->next = buckets[h];
			buckets[h] = l->addr;
		}
		if (l->addr == NULL || l->fd < 0) {
			pthread_mutex_unlock(&lock);
			free(l);
			return;
		}
		l->addr->count++;
		l->prev = tail;
		if (tail)
			tail->next = l;
		else
			head = l;
		tail = l;
		nopen++;
		pthread_mutex_unlock(&lock);
		*socket_context = l;
		return;
	}
	if ((l = *socket_context) == NULL)
		return;
	pthread_mutex_lock(&lock);
	if (l->prev)
		l->prev->next = l->next;
	else
		head = l->next;
	if (l->next)
		l->next->prev = l->prev;
	else
		tail = l->prev;
	addr_put(l->addr);
	nopen--;
	if (l->shut)
		nshut--;
	pthread_mutex_unlock(&lock);
	free(l);
	*socket_context = NULL;
}

/* The connection's state from now on; served counts an answer. */
static void
set_state(struct MHD_Connection *conn, int state, int served)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct link *l = ci ? ci->socket_context : NULL;

	if (l == NULL)
		return;
	pthread_mutex_lock(&lock);
	l->state = state;
	l->served += served;
	clock_gettime(CLOCK_MONOTONIC, &l->since);
	pthread_mutex_unlock(&lock);
}

void *
conns_request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls;
	(void)uri;
	set_state(conn, READING, 0);
	return NULL;
}

void
conns_busy(struct MHD_Connection *conn)
{
	set_state(conn, BUSY, 0);
}

void
conns_idle(struct MHD_Connection *conn)
{
	set_state(conn, WAITING, 1);
}

size_t
conns_open(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = nopen;
	pthread_mutex_unlock(&lock);
	return n;
}

void
conns_metrics(char *buf, size_t n)
{
	size_t len = strlen(buf);

	snprintf(buf + len, n - len,
	    "# HELP privd_http_connections_open Connections open now.\n"
	    "# TYPE privd_http_connections_open gauge\n"
	    "privd_http_connections_open %zu\n"
	    "# HELP privd_http_connections_refused_total Connections refused at accept, by reason.\n"
	    "# TYPE privd_http_connections_refused_total counter\n"
	    "privd_http_connections_refused_total{reason=\"per_address\"} %lu\n"
	    "privd_http_connections_refused_total{reason=\"full\"} %lu\n"
	    "# HELP privd_http_connections_timed_out_total Connections closed past a deadline, by state.\n"
	    "# TYPE privd_http_connections_timed_out_total counter\n"
	    "privd_http_connections_timed_out_total{state=\"idle\"} %lu\n"
	    "privd_http_connections_timed_out_total{state=\"request\"} %lu\n"
	    "# HELP privd_http_connections_evicted_total Connections closed to make room near the limit.\n"
	    "# TYPE privd_http_connections_evicted_total counter\n"
	    "privd_http_connections_evicted_total %lu\n",
	    conns_open(), atomic_load(&refused_address), atomic_load(&refused_full),
	    atomic_load(&timed_out_idle), atomic_load(&timed_out_request), atomic_load(&evicted));
}
