// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A run against an earlier one's folded file: the file read (stacks that
 * repeat add up), refused with the line's number when it is not folded
 * output, the stacks that grew and shrank, and the report's section */
#include "unit.h"
#include "folddiff.h"
#include "flamesvg.h"

#include <stdlib.h>
#include <unistd.h>

static char path[] = "/tmp/test_folddiff.XXXXXX";

static void file_of(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	fwrite(text, 1, len, f);
	fclose(f);
}

/* Why text is refused ("" if it is not) */
static const char *refused(const char *text, size_t len)
{
	static char why[256];
	struct folddiff *d;

	file_of(text, len);
	why[0] = 0;
	d = folddiff_load(path, why, sizeof(why));
	folddiff_free(d);
	return d ? "" : strstr(why, ": line") ? strstr(why, ": line") + 2 : why;
}

#define REFUSED(lit) refused(lit, sizeof(lit) - 1)

int main(void)
{
	static const char before[] =
		"app;main;wait_a 700\n"
		"app;main;wait_b 100\n"
		"\n"
		"app;main;wait_a 100\n"		/* the same stack again: 800 */
		"app;main;gone;nanosleep_[k] 50\n"
		"app;main;same 30\n"
		"app;main;caf\\xc3\\xa9 uses\\\\backslash 5\n";
	char why[256], *out = NULL;
	size_t n, len = 0;
	struct folddiff *d;
	const struct folddiff_row *r;
	FILE *f;
	int fd = mkstemp(path);

	close(fd);
	file_of(before, sizeof(before) - 1);
	d = folddiff_load(path, why, sizeof(why));
	CHECK(d != NULL, "a folded file is read (%s)", d ? "" : why);
	if (!d)
		return unit_exit();
	CHECK_U64(folddiff_total_before(d), 985, "its total, the repeated stack added up");
	/* the run: the blocking moved from wait_a to wait_b */
	folddiff_add(d, "app;main;wait_a", 100);
	folddiff_add(d, "app;main;wait_b", 750);
	folddiff_add(d, "app;main;same", 30);
	folddiff_add(d, "app;main;new_one", 20);
	CHECK_U64(folddiff_total_after(d), 900, "this run's total");
	r = folddiff_rows(d, &n);
	CHECK_U64(n, 6, "every stack of either run, once");
	CHECK(n == 6 && !strcmp(r[0].stack, "app;main;wait_b") && r[0].before == 100 &&
	      r[0].after == 750 && r[0].change == 650, "the one that grew most first: "
	      "wait_b, 100 -> 750");
	CHECK(n == 6 && !strcmp(r[1].stack, "app;main;new_one") && r[1].before == 0 &&
	      r[1].change == 20, "then a stack the earlier run did not have");
	CHECK(n == 6 && !strcmp(r[5].stack, "app;main;wait_a") && r[5].before == 800 &&
	      r[5].after == 100 && r[5].change == -700, "the one that shrank most last: "
	      "wait_a, 800 -> 100");
	CHECK(n == 6 && !strcmp(r[4].stack, "app;main;gone;nanosleep_[k]") && r[4].after == 0,
	      "a stack gone from this run: its whole value shrank");
	f = open_memstream(&out, &len);
	folddiff_print(d, f, "before.folded", "us", 3);
	fclose(f);
	CHECK(strstr(out, "\nagainst before.folded: 985 us before, 900 us now; 2 stacks grew, "
			  "3 shrank, 1 the same\n") != NULL, "the section's first line: totals "
	      "and how many moved");
	CHECK(strstr(out, "  grew most (us):\n            CHANGE         BEFORE          AFTER  STACK\n"
			  "              +650            100            750  app;main;wait_b\n"
			  "               +20              0             20  app;main;new_one\n") != NULL,
	      "the stacks that grew, most first, with before, after and change");
	CHECK(strstr(out, "  shrank most (us):\n            CHANGE         BEFORE          AFTER  STACK\n"
			  "              -700            800            100  app;main;wait_a\n"
			  "               -50             50              0  app;main;gone;nanosleep_[k]\n"
			  "                -5              5              0  app;main;caf\\xc3\\xa9 uses\\\\backslash\n")
	      != NULL, "the stacks that shrank, most first; escaped names as the file has "
	      "them, not escaped again");
	CHECK(!strstr(out, "app;main;same"), "an unchanged stack is in neither list");
	free(out);
	f = open_memstream(&out, &len);
	folddiff_print(d, f, "before.folded", "us", 1);
	fclose(f);
	CHECK(strstr(out, "app;main;wait_b") && !strstr(out, "new_one") &&
	      strstr(out, "app;main;wait_a") && !strstr(out, "gone"), "at most top stacks "
	      "each way");
	free(out);
	/* --svg with --diff: the differential graph of the same stacks (the
	 * gone ones, met in any order, add their before to main's) */
	{
		struct flamesvg *g = flamesvg_new();
		const struct flamesvg_meta m = { .tool = "t", .what = "w", .target = "pid 1",
						 .unit = "us" };

		CHECK(folddiff_graph(NULL, "x", g) == g, "without --diff: the graph as it is");
		g = folddiff_graph(d, "before.folded", g);
		f = open_memstream(&out, &len);
		flamesvg_write(g, f, &m, 0, NULL);
		fclose(f);
		CHECK(strstr(out, ", against before.folded</text>") != NULL, "titled against the file");
		CHECK(strstr(out, "<title>main (900 us, 100.00%; before 985, change -85 us)</title>") != NULL,
		      "a frame: this run's value, the file's (its gone stacks' included)");
		CHECK(strstr(out, "<title>wait_b (750 us, 83.33%; before 100, change +650 us)</title>") != NULL,
		      "the stack that grew most: its frame, before and after");
		CHECK(strstr(out, "2 stacks gone (only before, no width now): 55 us before.") != NULL &&
		      !strstr(out, "<title>gone ("), "the stacks gone: counted, not drawn");
		free(out);
		flamesvg_free(g);
	}
	folddiff_free(d);

	CHECK_STR(REFUSED("app;main 1\nno_value_here\n"), "line 2: no \"STACK VALUE\"",
		  "a line without a value: refused, with its number");
	CHECK_STR(REFUSED("app;main -3\n"), "line 1: the value is not a number", "a negative value");
	CHECK_STR(REFUSED("app;main 12x\n"), "line 1: the value is not a number", "a value with a tail");
	CHECK_STR(REFUSED("app;main 99999999999999999999\n"), "line 1: the value is too large",
		  "a value past 64 bits");
	CHECK_STR(REFUSED("a 18446744073709551615\nb 1\n"), "line 2: the values overflow 64 bits",
		  "values whose sum passes 64 bits");
	CHECK_STR(REFUSED("app;\x1b[31mred 1\n"), "line 1: a byte folded output never holds "
		  "unescaped (control, invalid UTF-8)", "a control byte: refused, never printed");
	CHECK_STR(REFUSED("app;\xff 1\n"), "line 1: a byte folded output never holds unescaped "
		  "(control, invalid UTF-8)", "invalid UTF-8");
	CHECK_STR(REFUSED("app;x\0y 1\n"), "line 1: a NUL byte", "a NUL byte");
	CHECK_STR(REFUSED(" 5\n"), "line 1: no \"STACK VALUE\"", "a value without a stack");
	CHECK_STR(REFUSED(""), "", "an empty file: an earlier run that saw nothing");
	unlink(path);
	CHECK(folddiff_load(path, why, sizeof(why)) == NULL && strstr(why, "No such file"),
	      "a missing file: said");
	return unit_exit();
}
