/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Plain-text tables with columns sized to their widest cell. */
#ifndef SUITE_TABLE_H
#define SUITE_TABLE_H

#include <stdio.h>

struct table;

/* align: one char per column, 'l' or 'r' */
struct table *table_new(int ncols, const char *const *headers, const char *align);
/* Appends a cell to the current row; a row is complete after ncols cells.
 * Cells are escaped (escape.h): a name from a traced process never splits
 * a row nor reaches the terminal raw; widths count the escaped form, one
 * column per character. */
void table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void table_print(const struct table *t, FILE *f, const char *indent);
void table_free(struct table *t);

#endif
