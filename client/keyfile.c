/* keyfile.c - an API key from a root-only file, for the CUPS backend and the PAM module. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keyfile.h"

int
keyfile_read(const char *path, char **key, char *err, size_t nerr)
{
	char buf[512], *s, *e;
	struct stat st;
	ssize_t n;
	int fd;

	*key = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(err, nerr, "key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, nerr, "key file %s: not a regular file", path);
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, nerr, "key file %s: owned by uid %ld, not by uid %ld that reads it",
		    path, (long)st.st_uid, (long)geteuid());
		goto fail;
	}
	if (st.st_mode & 077) {
		snprintf(err, nerr, "key file %s: mode %04o lets others read or change the key "
		    "(chmod 600 %s)", path, (unsigned)(st.st_mode & 07777), path);
		goto fail;
	}
	if ((n = read(fd, buf, sizeof(buf) - 1)) < 0) {
		snprintf(err, nerr, "key file %s: %s", path, strerror(errno));
		goto fail;
	}
	buf[n] = '\0';
	for (s = buf; *s == ' ' || *s == '\t'; s++)
		;
	for (e = s; *e && *e != '\n' && *e != '\r'; e++)
		;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	if (*s == '\0') {
		snprintf(err, nerr, "key file %s: empty (one line: the API key)", path);
		goto fail;
	}
	if ((*key = strdup(s)) == NULL) {
		snprintf(err, nerr, "key file %s: out of memory", path);
		goto fail;
	}
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return 0;
fail:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return -1;
}
