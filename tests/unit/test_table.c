// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "unit.h"
#include "table.h"
#include <stdlib.h>

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
	return unit_exit();
}
