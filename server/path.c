/* path.c - checking and comparing tree paths and cell names. */
#include <stdio.h>
#include <string.h>

#include "path.h"

static int
seg_char(int c, int first)
{
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
		return 1;
	return !first && (c == '-' || c == '_');
}

int
path_check(const char *path, const char *what, struct err *e)
{
	size_t seglen = 0;
	int depth = 0;
	const char *p;

	if (strlen(path) > PATH_MAX_LEN)
		return err_set(e, ERR_INVALID, 0, what,
		    "%s: path longer than %d characters", what, PATH_MAX_LEN);
	if (*path == '\0')
		return 0;
	for (p = path;; p++) {
		if (*p == '/' || *p == '\0') {
			if (seglen == 0)
				return err_set(e, ERR_INVALID, 0, what,
				    "%s: empty segment in path '%s'", what, path);
			if (++depth > PATH_DEPTH_MAX)
				return err_set(e, ERR_INVALID, 0, what,
				    "%s: path '%s' deeper than %d", what, path,
				    PATH_DEPTH_MAX);
			seglen = 0;
			if (*p == '\0')
				break;
			continue;
		}
		if (!seg_char((unsigned char)*p, seglen == 0))
			return err_set(e, ERR_INVALID, 0, what,
			    "%s: bad character '%c' in path '%s' (allowed: a-z 0-9, "
			    "and - _ after the first)", what, *p, path);
		if (++seglen > PATH_SEG_MAX)
			return err_set(e, ERR_INVALID, 0, what,
			    "%s: segment longer than %d in path '%s'", what,
			    PATH_SEG_MAX, path);
	}
	return 0;
}

int
path_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

int
path_depth(const char *path)
{
	int d;

	if (*path == '\0')
		return 0;
	for (d = 1; *path; path++)
		if (*path == '/')
			d++;
	return d;
}

size_t
path_parent_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) : 0;
}

const char *
path_leaf(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int
cell_split(const char *name, char *reason, char *org, struct err *e)
{
	const char *at = strchr(name, '@');
	size_t rlen;

	if (at == NULL || strchr(at + 1, '@') != NULL)
		return err_set(e, ERR_INVALID, 0, "cell",
		    "cell '%.300s' is not of the form reason@organisation", name);
	rlen = at - name;
	if (rlen > PATH_MAX_LEN || strlen(at + 1) > PATH_MAX_LEN)
		return err_set(e, ERR_INVALID, 0, "cell", "cell name too long");
	memcpy(reason, name, rlen);
	reason[rlen] = '\0';
	strcpy(org, at + 1);
	if (path_check(reason, "reason", e) != 0 ||
	    path_check(org, "organisation", e) != 0) {
		/* prefix the cell so the user sees which one */
		char msg[ERR_MSG_MAX];

		if (e != NULL) {
			snprintf(msg, sizeof(msg), "cell '%.200s': %.300s", name, e->msg);
			snprintf(e->msg, sizeof(e->msg), "%s", msg);
		}
		return -1;
	}
	return 0;
}

void
cell_join(char *out, const char *reason, const char *org)
{
	snprintf(out, CELL_MAX_LEN + 1, "%s@%s", reason, org);
}

int
uid_check(const char *uid, struct err *e)
{
	const char *p;

	if (*uid == '\0' || strlen(uid) > UID_MAX)
		return err_set(e, ERR_INVALID, 0, "uid", "uid must be 1 to %d characters", UID_MAX);
	for (p = uid; *p; p++) {
		int c = (unsigned char)*p;
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9');

		if (!alnum && (p == uid || (c != '.' && c != '_' && c != '-')))
			return err_set(e, ERR_INVALID, 0, "uid",
			    "uid '%.64s': bad character (allowed: letters, digits, "
			    "and . _ - after the first)", uid);
	}
	return 0;
}
