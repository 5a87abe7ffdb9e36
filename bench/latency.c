/*
 * latency.c - read latency at a fixed rate (open loop): CONC threads, each
 * with a keep-alive connection of its own (plain sockets: a client cheap
 * enough not to be the bottleneck), send RATE requests/s in total for
 * SECONDS; a late request is timed from when it was due. Prints p50, p99
 * in ms and the number of requests.
 * Usage: latency PORT PATH KEY RATE SECONDS CONC
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static char **av;
static double *lat;
static long nlat, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int conc;

/* Sends one request and reads its whole answer; -1 on a broken connection. */
static int
one(int fd, const char *req, size_t len)
{
	char buf[16384];
	size_t have = 0;
	long want = -1;

	if (write(fd, req, len) != (ssize_t)len)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *h, *cl;

		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		if (want < 0 && (h = strstr(buf, "\r\n\r\n")) != NULL) {
			if ((cl = strcasestr(buf, "Content-Length:")) == NULL)
				return -1;
			want = (h + 4 - buf) + atol(cl + 15);
		}
		if (want >= 0 && (long)have >= want)
			return 0;
		if (have == sizeof(buf) - 1)
			return -1;
	}
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
run(void *arg)
{
	double rate = atof(av[4]) / conc, start = now_s() + (long)arg * (1.0 / atof(av[4]));
	double end = start + atof(av[5]);
	struct sockaddr_in sa;
	char req[1024];
	size_t len;
	long k;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)atoi(av[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return NULL;
	len = (size_t)snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Authorization: Bearer %s\r\n\r\n", av[2], av[3]);
	for (k = 0;; k++) {
		double due = start + k / rate, t;

		if (due > end)
			break;
		while ((t = now_s()) < due) {
			struct timespec ts = { 0, (long)((due - t) * 1e9) };

			nanosleep(&ts, NULL);
		}
		if (one(fd, req, len) != 0)
			break;
		t = (now_s() - due) * 1e3;
		pthread_mutex_lock(&lock);
		if (nlat < cap)
			lat[nlat++] = t;
		pthread_mutex_unlock(&lock);
	}
	close(fd);
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
	pthread_t t[256];
	int i;

	if (argc != 7) {
		fprintf(stderr, "usage: latency PORT PATH KEY RATE SECONDS CONC\n");
		return 2;
	}
	av = argv;
	conc = atoi(argv[6]);
	cap = (long)(atof(argv[4]) * atof(argv[5]) * 1.1) + 16;
	if (conc < 1 || conc > 256 || (lat = calloc((size_t)cap, sizeof(*lat))) == NULL)
		return 2;
	for (i = 0; i < conc; i++)
		pthread_create(&t[i], NULL, run, (void *)(long)i);
	for (i = 0; i < conc; i++)
		pthread_join(t[i], NULL);
	qsort(lat, (size_t)nlat, sizeof(*lat), cmp);
	printf("%.2f %.2f %ld\n", nlat ? lat[nlat / 2] : 0, nlat ? lat[(nlat * 99) / 100] : 0, nlat);
	return 0;
}
