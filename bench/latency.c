/*
 * latency.c - read latency at a fixed rate, open loop. Two threads, each
 * with CONNS/2 keep-alive connections on one epoll set, send RATE/2
 * requests/s each for SECONDS: request k is due at start + k/rate and goes
 * out on a free connection when it is due (or as soon as one frees, still
 * timed from when it was due, so a stalled server shows as latency rather
 * than as requests not sent). Waits use epoll_pwait2's nanosecond timeout,
 * so the generator does not oversleep its schedule.
 *
 * Prints p50, p99 and p99.9 in ms, the rate it achieved (answers/s) and
 * the share of requests it sent more than 1 ms after they were due while
 * a connection was free: the generator's own lag. The run measures privd
 * only when the achieved rate is the target and that lag is near 0.
 * Usage: latency PORT PATH KEY RATE SECONDS CONNS
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define THREADS 2

struct conn {
	int fd;
	double due;		/* of the request in flight; < 0 when free */
	char buf[16384];
	size_t have;
	long want;		/* bytes of the whole answer, once the header is in */
};

struct gen {
	int id, nconn;
	double rate, start, end;
	struct conn *c;
	double *lat;		/* ms, one per answer */
	long nlat, cap, late, sent;
};

static char req[1024];
static size_t reqlen;
static int port;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
dial(void)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* Reads what is there; 1 when the answer is whole, 0 not yet, -1 broken. */
static int
take(struct conn *c)
{
	for (;;) {
		ssize_t n = read(c->fd, c->buf + c->have, sizeof(c->buf) - 1 - c->have);
		char *h, *cl;

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		c->have += (size_t)n;
		c->buf[c->have] = '\0';
		if (c->want < 0 && (h = strstr(c->buf, "\r\n\r\n")) != NULL) {
			if ((cl = strcasestr(c->buf, "Content-Length:")) == NULL)
				return -1;
			c->want = (h + 4 - c->buf) + atol(cl + 15);
		}
		if (c->want >= 0 && (long)c->have >= c->want)
			return 1;
		if (c->have == sizeof(c->buf) - 1)
			return -1;
	}
}

static void *
run(void *arg)
{
	struct gen *g = arg;
	struct epoll_event ev[64];
	int ep = epoll_create1(0), i, *free_c, nfree = 0, starved = 0;
	long k = 0;

	if (ep < 0 || (free_c = calloc((size_t)g->nconn, sizeof(*free_c))) == NULL)
		return NULL;
	for (i = 0; i < g->nconn; i++) {
		struct epoll_event e = { EPOLLIN, { .u32 = (uint32_t)i } };

		if ((g->c[i].fd = dial()) < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, g->c[i].fd, &e) != 0)
			return NULL;
		g->c[i].due = -1;
		free_c[nfree++] = i;
	}
	/* the two generators interleave their schedules */
	for (;;) {
		double t = now_s(), due = g->start + (k + g->id * 0.5) / g->rate, wait;
		struct timespec ts;
		int n;

		while (due <= t && due < g->end && nfree > 0) {
			struct conn *c = &g->c[free_c[--nfree]];

			/* late with a connection free: the generator's own lag */
			if (t - due > 0.001 && !starved)
				g->late++;
			c->due = due;
			c->have = 0;
			c->want = -1;
			if (write(c->fd, req, reqlen) != (ssize_t)reqlen)
				goto out;
			g->sent++;
			k++;
			due = g->start + (k + g->id * 0.5) / g->rate;
		}
		/* every connection busy: what is sent late now waited for privd */
		starved = due <= t && due < g->end && nfree == 0;
		if (due >= g->end && nfree == g->nconn)
			break;
		if (t > g->end + 5)
			break;	/* answers that never came: leave them */
		wait = nfree > 0 && due < g->end ? due - t : 0.010;
		if (wait < 0)
			wait = 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		n = epoll_pwait2(ep, ev, 64, &ts, NULL);
		for (i = 0; i < n; i++) {
			struct conn *c = &g->c[ev[i].data.u32];
			int r = take(c);

			if (r < 0)
				goto out;
			if (r == 1 && c->due >= 0) {
				if (g->nlat < g->cap)
					g->lat[g->nlat++] = (now_s() - c->due) * 1e3;
				c->due = -1;
				free_c[nfree++] = (int)ev[i].data.u32;
			}
		}
	}
out:
	for (i = 0; i < g->nconn; i++)
		if (g->c[i].fd >= 0)
			close(g->c[i].fd);
	close(ep);
	free(free_c);
	return NULL;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct gen g[THREADS];
	pthread_t t[THREADS];
	double rate, secs, *all;
	long n = 0, late = 0, sent = 0;
	int i, conns;

	if (argc != 7) {
		fprintf(stderr, "usage: latency PORT PATH KEY RATE SECONDS CONNS\n");
		return 2;
	}
	port = atoi(argv[1]);
	rate = atof(argv[4]);
	secs = atof(argv[5]);
	conns = atoi(argv[6]);
	if (rate <= 0 || secs <= 0 || conns < THREADS || conns > 1024)
		return 2;
	reqlen = (size_t)snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Authorization: Bearer %s\r\n\r\n", argv[2], argv[3]);
	for (i = 0; i < THREADS; i++) {
		g[i].id = i;
		g[i].nconn = conns / THREADS;
		g[i].rate = rate / THREADS;
		g[i].start = now_s() + 0.2;	/* every connection is up by then */
		g[i].end = g[i].start + secs;
		g[i].cap = (long)(g[i].rate * secs * 1.1) + 16;
		g[i].nlat = g[i].late = g[i].sent = 0;
		g[i].c = calloc((size_t)g[i].nconn, sizeof(*g[i].c));
		g[i].lat = calloc((size_t)g[i].cap, sizeof(double));
		if (g[i].c == NULL || g[i].lat == NULL)
			return 2;
	}
	for (i = 0; i < THREADS; i++)
		g[i].start = g[0].start, g[i].end = g[0].end;
	for (i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, run, &g[i]);
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		n += g[i].nlat;
		late += g[i].late;
		sent += g[i].sent;
	}
	if ((all = calloc((size_t)n + 1, sizeof(*all))) == NULL)
		return 2;
	for (n = 0, i = 0; i < THREADS; i++) {
		memcpy(all + n, g[i].lat, (size_t)g[i].nlat * sizeof(*all));
		n += g[i].nlat;
	}
	qsort(all, (size_t)n, sizeof(*all), cmp);
	printf("%.2f %.2f %.2f %.0f %.4f\n", n ? all[n / 2] : 0, n ? all[(n * 99) / 100] : 0,
	    n ? all[(n * 999) / 1000] : 0, n / secs, sent ? (double)late / sent : 1.0);
	return 0;
}
