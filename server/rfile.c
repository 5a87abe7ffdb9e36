/*
 * rfile.c - one bounded reader for every file privd and privctl read
 * (rfile.h). Opened non-blocking, so a FIFO cannot hang the open; checked
 * with fstat on the open descriptor, so what is read is what was checked;
 * read to at most max + 1 bytes, so a file that grows is caught too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rfile.h"

int
rfile_read(const char *path, size_t max, char **buf, size_t *len, char *why, size_t n)
{
	struct stat st;
	size_t got = 0;
	char *b = NULL;
	int fd, saved;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0) {
		saved = errno;
		snprintf(why, n, "cannot read: %s", strerror(errno));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, n, "not a regular file");
		goto fail;
	}
	if ((size_t)st.st_size > max) {
		snprintf(why, n, "larger than %zu bytes", max);
		goto fail;
	}
	if ((b = malloc((size_t)st.st_size + 2)) == NULL) {
		snprintf(why, n, "out of memory");
		goto fail;
	}
	for (;;) {
		ssize_t r = read(fd, b + got, (size_t)st.st_size + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, n, "cannot read: %s", strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > (size_t)st.st_size) {
			snprintf(why, n, "grew while it was read");
			goto fail;
		}
	}
	close(fd);
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
fail:
	close(fd);
	free(b);
	errno = EINVAL;
	return -1;
}
