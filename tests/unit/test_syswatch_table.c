// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "unit.h"
#include "table.h"
#include <stdlib.h>

/* A table whose cells hold names from traced processes: escaped, the
 * widths counting the escaped form */
static void print_table(FILE *f)
{
	static const char *const h[] = { "COMM", "COUNT", "NOTE" };
	struct table *t = table_new(3, h, "lrl");

	table_cell(t, "%s", "a\nb\x1b[2J");
	table_cell(t, "%d", 3);
	table_cell(t, "x");
	table_cell(t, "%s", "h\xc3\xa9llo");
	table_cell(t, "%d", 12);
	table_cell(t, "%s", "y\r");
	table_print(t, f, "");
	table_free(t);
}

static char *capture_table(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print_table(f);
	fclose(f);
	return buf;
}


int main(void)
{
	static const char *const h[] = { "NAME", "COUNT", "NOTE" };
	struct table *t = table_new(3, h, "lrl");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	table_cell(t, "getppid");
	table_cell(t, "%d", 12345);
	table_cell(t, "x");
	table_cell(t, "rt");
	table_cell(t, "%d", 7);
	table_cell(t, "long note");
	table_print(t, f, "  ");
	fclose(f);
	CHECK_STR(buf, "  NAME     COUNT  NOTE\n  getppid  12345  x\n  rt           7  long note\n",
		  "columns sized to the widest cell, right-aligned numbers");
	free(buf);
	table_free(t);

	char *s;
	s = capture_table();
	CHECK_STR(s, "COMM           COUNT  NOTE\n"
		     "a\\x0ab\\x1b[2J      3  x\n"
		     "h\xc3\xa9llo             12  y\\x0d\n",
		  "table: a name never splits a row, widths count the escaped form");
	free(s);

	return unit_exit();
}
