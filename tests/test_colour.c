/*
 * test_colour.c - privd-cups's colour page by page: PWG raster pages by
 * their pixels (colour, grey made as RGB, a grey colour space), PDF and
 * PostScript pages rendered by Ghostscript (grey drawn in RGB is grey), the
 * threshold, and what it cannot read.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cups/raster.h>

#include "colour.h"
#include "fixture.h"

#define W 64
#define H 64

/* A page of w x h: sRGB filled with rgb and a 16x16 square of sq, or grey. */
static void
page(cups_raster_t *r, int grey, const unsigned char *rgb, const unsigned char *sq)
{
	cups_page_header2_t h;
	unsigned char line[W * 3];
	unsigned x, y;

	assert_true(cupsRasterInitPWGHeader(&h, pwgMediaForPWG("iso_a4_210x297mm"),
	    grey ? "sgray_8" : "srgb_8", 72, 72, "one-sided", NULL));
	h.cupsWidth = W;
	h.cupsHeight = H;
	h.cupsBytesPerLine = grey ? W : W * 3;
	assert_true(cupsRasterWriteHeader2(r, &h));
	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			const unsigned char *p = x < 16 && y < 16 && sq ? sq : rgb;

			if (grey)
				line[x] = p[0];
			else
				memcpy(line + 3 * x, p, 3);
		}
		assert_int_equal(cupsRasterWritePixels(r, line, h.cupsBytesPerLine),
		    h.cupsBytesPerLine);
	}
}

static void
raster_pages_by_pixels(void **state)
{
	static const unsigned char white[3] = { 255, 255, 255 }, red[3] = { 220, 10, 10 },
	    grey[3] = { 128, 128, 130 };
	char path[] = "/tmp/test_colour.XXXXXX", err[256], *kinds = NULL;
	cups_raster_t *r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(r = cupsRasterOpen(fd, CUPS_RASTER_WRITE_PWG));
	page(r, 0, white, red);		/* a red square: colour */
	page(r, 0, white, grey);	/* grey made as RGB: mono */
	page(r, 1, white, grey);	/* a grey colour space: mono */
	page(r, 0, white, NULL);	/* blank */
	cupsRasterClose(r);
	close(fd);
	assert_int_equal(colour_pages(path, "image/pwg-raster", 0.001, &kinds, err,
	    sizeof(err)), 0);
	assert_string_equal(kinds, "cmmm");
	free(kinds);
	/* the square is 1/16 of the page: above 0.05 it is not colour enough */
	assert_int_equal(colour_pages(path, "image/pwg-raster", 0.1, &kinds, err,
	    sizeof(err)), 0);
	assert_string_equal(kinds, "mmmm");
	free(kinds);
	unlink(path);
}

static void
pdf_pages_rendered(void **state)
{
	char dir[] = "/tmp/test_colour.XXXXXX", cmd[1024], pdf[512], err[256], *kinds = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(pdf, sizeof(pdf), "%s/mix.pdf", dir);
	/* 1 black text; 2, 3 a blue box; 4 a grey box; 5 a grey box drawn in
	 * RGB, as office documents draw grey; 6 a blue dot below the threshold */
	snprintf(cmd, sizeof(cmd), "gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=pdfwrite "
	    "-sOutputFile=%s -c '1 1 6 { dup 2 eq 1 index 3 eq or { 0 0 1 setrgbcolor 100 100 "
	    "200 200 rectfill } if dup 4 eq { 0.5 setgray 100 100 200 200 rectfill } if "
	    "dup 5 eq { 0.5 0.5 0.5 setrgbcolor 100 100 200 200 rectfill } if "
	    "dup 6 eq { 0 0 1 setrgbcolor 100 100 4 4 rectfill } if "
	    "0 setgray /Helvetica findfont 24 scalefont setfont 72 700 moveto (Page) show "
	    "showpage pop } for'", pdf);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(colour_pages(pdf, "application/pdf", 0.001, &kinds, err, sizeof(err)), 0);
	assert_string_equal(kinds, "mccmmm");
	free(kinds);
	/* the types pages_count reads, as cupsd names them */
	assert_int_equal(colour_pages(pdf, "application/vnd.cups-pdf", 0.001, &kinds, err,
	    sizeof(err)), 0);
	assert_string_equal(kinds, "mccmmm");
	free(kinds);
	/* a threshold of 0 counts the dot */
	assert_int_equal(colour_pages(pdf, "application/pdf", 0, &kinds, err, sizeof(err)), 0);
	assert_string_equal(kinds, "mccmmc");
	free(kinds);
	/* the same pages as PostScript */
	snprintf(cmd, sizeof(cmd), "gs -q -dNOPAUSE -dBATCH -dSAFER -sDEVICE=ps2write "
	    "-sOutputFile=%s/mix.ps %s", dir, pdf);
	assert_int_equal(system(cmd), 0);
	snprintf(pdf, sizeof(pdf), "%s/mix.ps", dir);
	assert_int_equal(colour_pages(pdf, "application/postscript", 0.001, &kinds, err,
	    sizeof(err)), 0);
	assert_string_equal(kinds, "mccmmm");
	free(kinds);
	/* not a PDF: an error, no pages */
	snprintf(cmd, sizeof(cmd), "printf 'not a pdf' > %s/bad.pdf", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(pdf, sizeof(pdf), "%s/bad.pdf", dir);
	assert_int_equal(colour_pages(pdf, "application/pdf", 0.001, &kinds, err, sizeof(err)), -1);
	assert_null(kinds);
	assert_true(err[0] != '\0');
	/* a type it does not classify */
	assert_int_equal(colour_pages(pdf, "text/plain", 0.001, &kinds, err, sizeof(err)), 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

FX_MAIN("colour",
	cmocka_unit_test(raster_pages_by_pixels),
	cmocka_unit_test(pdf_pages_rendered))
