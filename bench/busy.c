/*
 * busy.c - charges of one page into ONE account, each with a fresh request
 * id busy-START .. busy-(START+COUNT-1), THREADS at a time, each thread on a
 * keep-alive connection of its own. Prints charges/s and how many were not
 * answered 201. The hard case for the ledger: one busy account (a copier,
 * a kiosk, a shared budget), not charges spread over fresh accounts.
 * Usage: busy URL KEY ACCOUNT START COUNT THREADS
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

static const char *url, *key, *account;
static long start, count;
static atomic_long next, bad;

static size_t
sink(void *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static void *
run(void *arg)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hd = NULL;
	char auth[256], target[512], body[128];
	long i, code;

	(void)arg;
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", key);
	hd = curl_slist_append(hd, auth);
	hd = curl_slist_append(hd, "Content-Type: application/json");
	snprintf(target, sizeof(target), "%s/v1/accounts/%s/quotas/print.pages/charges", url,
	    account);
	curl_easy_setopt(h, CURLOPT_URL, target);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	while ((i = atomic_fetch_add(&next, 1)) < count) {
		snprintf(body, sizeof(body), "{\"request_id\":\"busy-%ld\",\"amount\":1}", start + i);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		code = 0;
		if (curl_easy_perform(h) != CURLE_OK ||
		    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK || code != 201)
			atomic_fetch_add(&bad, 1);
	}
	curl_slist_free_all(hd);
	curl_easy_cleanup(h);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[64];
	struct timespec a, b;
	int i, n;
	double s;

	if (argc != 7 || (n = atoi(argv[6])) < 1 || n > 64) {
		fprintf(stderr, "usage: busy URL KEY ACCOUNT START COUNT THREADS\n");
		return 2;
	}
	url = argv[1];
	key = argv[2];
	account = argv[3];
	start = atol(argv[4]);
	count = atol(argv[5]);
	curl_global_init(CURL_GLOBAL_ALL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%.0f %ld\n", s > 0 ? count / s : 0, atomic_load(&bad));
	curl_global_cleanup();
	return 0;
}
