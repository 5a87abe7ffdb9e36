/*
 * colour.c - colour page by page, from pixels: Ghostscript's rendering of
 * PDF and PostScript, or the raster itself. gs runs as a child with
 * -dSAFER and its output read from a pipe, never through a shell: the
 * spool file's name is cupsd's, the document is the user's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cups/raster.h>

#include "colour.h"
#include "pages.h"

#define PAGES_MAX 100000

static int
append(char **kinds, size_t *n, char k)
{
	char *nk;

	if (*n >= PAGES_MAX || (nk = realloc(*kinds, *n + 2)) == NULL)
		return -1;
	nk[(*n)++] = k;
	nk[*n] = '\0';
	*kinds = nk;
	return 0;
}

/* Pixels of rgb (n of them, 3 bytes each) whose channels differ by more than a
 * grey's rounding: grey made as RGB is grey, not colour. */
static long
chroma(const unsigned char *p, size_t n)
{
	long c = 0;

	for (; n > 0; n--, p += 3) {
		int r = p[0], g = p[1], b = p[2];
		int hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
		int lo = r < g ? (r < b ? r : b) : (g < b ? g : b);

		c += hi - lo > 24;
	}
	return c;
}

/* A number of a PPM header, skipping blanks and comments; -1 at its end. */
static long
ppm_num(FILE *f)
{
	long v = 0;
	int ch, digits = 0;

	while ((ch = getc(f)) != EOF && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
	    ch == '#'))
		if (ch == '#')
			while ((ch = getc(f)) != EOF && ch != '\n')
				;
	for (; ch != EOF && ch >= '0' && ch <= '9' && v < 1000000; ch = getc(f), digits++)
		v = v * 10 + (ch - '0');
	return digits ? v : -1;	/* the one blank after it is read too */
}

/*
 * PDF and PostScript: Ghostscript renders each page as RGB at 36 dpi
 * (ppmraw, fast colour: no ICC work, grey stays r = g = b) and the pixels
 * decide. Ghostscript's inkcov device was tried first: it reports the
 * area each CMYK channel touches, so a grey box drawn in RGB, as office
 * documents draw it, reads as cyan, magenta and yellow, and its page
 * would be charged as colour.
 */
static int
render(const char *path, double threshold, char **kinds, char *err, size_t nerr)
{
	char *av[] = { "gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dUseFastColor=true",
	    "-r36", "-sDEVICE=ppmraw", "-sstdout=%stderr", "-sOutputFile=%stdout", (char *)path,
	    NULL };
	unsigned char *px = NULL, *np;
	size_t n = 0, cap = 0;
	int fds[2], st, bad = 0, ch;
	pid_t pid;
	FILE *f;

	if (pipe(fds) != 0) {
		snprintf(err, nerr, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(err, nerr, "cannot start gs: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		close(fds[0]);
		close(fds[1]);
		signal(SIGTERM, SIG_DFL);
		execvp("gs", av);
		_exit(127);
	}
	close(fds[1]);
	if ((f = fdopen(fds[0], "r")) == NULL) {
		close(fds[0]);
		bad = 1;
	}
	/* one "P6 W H 255" image a page */
	while (f && !bad && (ch = getc(f)) != EOF) {
		long w, h, max;
		size_t bytes;

		if (ch != 'P' || getc(f) != '6' || (w = ppm_num(f)) <= 0 || (h = ppm_num(f)) <= 0 ||
		    (max = ppm_num(f)) != 255 || w * h > 64L * 1024 * 1024) {
			bad = 2;
			break;
		}
		bytes = (size_t)w * (size_t)h * 3;
		if (bytes > cap) {
			if ((np = realloc(px, bytes)) == NULL) {
				bad = 1;
				break;
			}
			px = np;
			cap = bytes;
		}
		if (fread(px, 1, bytes, f) != bytes) {
			bad = 2;
			break;
		}
		if (append(kinds, &n, (double)chroma(px, (size_t)w * (size_t)h) >
		    threshold * (double)w * (double)h ? 'c' : 'm') != 0)
			bad = 1;
	}
	if (f) {
		/* drain what is left, so gs is not stopped by a full pipe */
		while (getc(f) != EOF)
			;
		fclose(f);
	}
	free(px);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (bad || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || n == 0) {
		snprintf(err, nerr, "%s", bad == 1 ? "out of memory" : !WIFEXITED(st) ?
		    "gs was killed" : WEXITSTATUS(st) == 127 ? "gs (Ghostscript) is not installed" :
		    bad == 2 ? "gs gave an image privd-cups cannot read" : n == 0 ?
		    "gs found no pages" : "gs could not read the document");
		return -1;
	}
	return 0;
}

/* A raster walk's state: the pages classified so far and the one being read. */
struct rwalk {
	double threshold;
	char **kinds;
	size_t n;
	int rgb;		/* the page is 8-bit chunky RGB: its pixels decide */
	long coloured;		/* its pixels with colour so far */
};

/* The page before this one is decided; this one is RGB (read) or grey (mono). */
static int
rpage_start(void *arg, const cups_page_header2_t *h, long page, char *err, size_t nerr)
{
	struct rwalk *w = arg;
	int grey = h->cupsColorSpace == CUPS_CSPACE_W || h->cupsColorSpace == CUPS_CSPACE_SW ||
	    h->cupsColorSpace == CUPS_CSPACE_K;

	w->rgb = (h->cupsColorSpace == CUPS_CSPACE_RGB || h->cupsColorSpace == CUPS_CSPACE_SRGB ||
	    h->cupsColorSpace == CUPS_CSPACE_ADOBERGB) && h->cupsBitsPerPixel == 24 &&
	    h->cupsColorOrder == CUPS_ORDER_CHUNKED;
	if (!w->rgb && !grey) {
		snprintf(err, nerr, "raster page %ld: colour space %u at %u bits is not one "
		    "privd-cups classifies", page, h->cupsColorSpace, h->cupsBitsPerPixel);
		return -1;
	}
	w->coloured = 0;
	/* a place for this page, decided by its lines */
	if (append(w->kinds, &w->n, 'm') != 0) {
		snprintf(err, nerr, "out of memory");
		return -1;
	}
	return 0;
}

static void
rpage_line(void *arg, const cups_page_header2_t *h, const unsigned char *line)
{
	struct rwalk *w = arg;

	if (!w->rgb || h->cupsBytesPerLine < h->cupsWidth * 3)
		return;
	w->coloured += chroma(line, h->cupsWidth);
	if ((double)w->coloured > w->threshold * h->cupsWidth * h->cupsHeight)
		(*w->kinds)[w->n - 1] = 'c';
}

/* CUPS and PWG raster: 8-bit RGB pages by their pixels; grey spaces are mono. */
static int
raster(const char *path, double threshold, char **kinds, char *err, size_t nerr)
{
	struct rwalk w = { threshold, kinds, 0, 0, 0 };
	struct pages_raster_fn fn = { rpage_start, rpage_line, &w };
	long pages;

	if (pages_raster(path, &fn, &pages, err, nerr) != 0)
		return -1;
	if (pages == 0) {
		snprintf(err, nerr, "no raster pages");
		return -1;
	}
	return 0;
}

int
colour_pages(const char *path, const char *type, double threshold, char **kinds,
    char *err, size_t nerr)
{
	int rc;

	*kinds = NULL;
	switch (pages_format(type)) {
	case PAGES_PDF:
	case PAGES_POSTSCRIPT:
		rc = render(path, threshold, kinds, err, nerr);
		break;
	case PAGES_RASTER:
		rc = raster(path, threshold, kinds, err, nerr);
		break;
	default:
		return 1;
	}
	if (rc != 0) {
		free(*kinds);
		*kinds = NULL;
	}
	return rc;
}
