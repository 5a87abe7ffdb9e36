/*
 * ceiling.c - the ceiling for privd's reads: a minimal libmicrohttpd server
 * with privd's thread settings (epoll, a pool of THREADS) answering a fixed
 * JSON body of SIZE bytes. Usage: ceiling PORT SIZE THREADS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

static char *body;
static size_t len;

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
    const char *version, const char *data, size_t *size, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	static int first;

	(void)cls; (void)url; (void)method; (void)version; (void)data; (void)size;
	/* like privd: answer on the second call, once the request is whole
	 * (an answer on the first makes libmicrohttpd close the connection) */
	if (*state == NULL) {
		*state = &first;
		return MHD_YES;
	}
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

int
main(int argc, char **argv)
{
	struct MHD_Daemon *d;
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: ceiling PORT SIZE THREADS\n");
		return 2;
	}
	len = (size_t)atol(argv[2]);
	if ((body = malloc(len + 1)) == NULL)
		return 1;
	body[0] = '{';
	for (i = 1; i + 2 < len; i++)
		body[i] = 'x';
	memcpy(body + (len > 2 ? len - 2 : 0), "}\n", 2);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL,
	    (uint16_t)atoi(argv[1]), NULL, NULL, answer, NULL,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[3]),
	    MHD_OPTION_CONNECTION_LIMIT, 1024U, MHD_OPTION_END);
	if (d == NULL)
		return 1;
	pause();
	return 0;
}
