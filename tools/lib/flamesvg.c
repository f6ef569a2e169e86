// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "flamesvg.h"
#include "escape.h"
#include "hashmap.h"
#include "msg.h"
#include "opts.h"
#include "output.h"
#include "run.h"
#include "clock.h"
#include "sbuf.h"
#include "vec.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One frame of the tree: its value is its own and its children's */
struct fnode {
	const char *name;	/* interned: lives as long as the graph */
	uint32_t parent;
	uint8_t kind;
	uint64_t value;
	uint64_t before;	/* differential: its value in the earlier run */
};

/* (parent, kind, name) -> the child's index */
struct fchild_key {
	uint64_t name;
	uint32_t parent;
	uint32_t kind;
};

struct flamesvg {
	VEC(struct fnode) nodes;
	struct hashmap *names;		/* string -> nothing: the interned copy */
	struct hashmap *children;	/* struct fchild_key -> uint32_t */
	/* differential (flamesvg_add_diff()) */
	bool diff;
	char *against;			/* the earlier run's file */
	size_t gone;			/* stacks with nothing now */
	uint64_t gone_before;		/* and their value before */
};

struct flamesvg *flamesvg_new(void)
{
	struct flamesvg *g = xcalloc(1, sizeof(*g));

	g->names = hashmap_new(0, 1);
	g->children = hashmap_new(sizeof(struct fchild_key), sizeof(uint32_t));
	vec_push(&g->nodes, ((struct fnode){ .name = "all", .kind = FLAME_ROOT }));
	return g;
}

void flamesvg_free(struct flamesvg *g)
{
	if (!g)
		return;
	vec_free(&g->nodes);
	hashmap_free(g->names);
	hashmap_free(g->children);
	free(g->against);
	free(g);
}

/* The child of node at named name of kind kind, created when create
 * (else NULL if there is none) */
static uint32_t *child_of(struct flamesvg *g, uint32_t at, const char *name, unsigned char kind,
			  bool create)
{
	size_t len = strlen(name) + 1;
	void *in = create ? hashmap_get_blob(g->names, name, len, NULL) :
			    hashmap_lookup_blob(g->names, name, len);
	struct fchild_key k = { .parent = at, .kind = kind < FLAME_KINDS ? kind : FLAME_USER };
	bool created = false;
	uint32_t *child;

	if (!in)
		return NULL;
	k.name = (uint64_t)(uintptr_t)hashmap_key(g->names, in);
	child = create ? hashmap_get(g->children, &k, &created) : hashmap_lookup(g->children, &k);
	if (created) {
		*child = (uint32_t)g->nodes.n;
		vec_push(&g->nodes, ((struct fnode){ .name = (const char *)(uintptr_t)k.name,
						     .parent = at, .kind = (uint8_t)k.kind }));
	}
	return child;
}

/* One stack: value (this run's) and before (the earlier run's) added
 * along its path.  A stack with nothing now but something before (gone)
 * adds to the frames that exist and stops at the first that does not: a
 * frame with nothing now is never drawn (the stack is counted apart) */
static void add_path(struct flamesvg *g, const char *const *names, const unsigned char *kinds,
		     int n, uint64_t value, uint64_t before)
{
	bool gone = !value && before;
	uint32_t at = 0, *child;

	g->nodes.v[0].value += value;
	g->nodes.v[0].before += before;
	for (int i = 0; i < n; i++) {
		child = child_of(g, at, names[i] ? names[i] : "[unknown]", kinds[i], !gone);
		if (!child)
			return;
		at = *child;
		g->nodes.v[at].value += value;
		g->nodes.v[at].before += before;
	}
}

void flamesvg_add(struct flamesvg *g, const char *const *names, const unsigned char *kinds,
		  int n, uint64_t value)
{
	add_path(g, names, kinds, n, value, 0);
}

void flamesvg_add_stack(struct flamesvg *g, const struct stacksym *sym, const char *comm,
			const char *irq, const struct stack_frames *f,
			const struct stack_locs *l, uint64_t value)
{
	const char *names[1 + STACK_UFRAMES_MAX + 2 + STACK_FRAMES_MAX + 1];
	unsigned char kinds[sizeof(names) / sizeof(names[0])];
	int n = 0;

	names[n] = comm && *comm ? comm : "[unknown]";
	kinds[n++] = FLAME_THREAD;
	if (irq && *irq) {
		names[n] = irq;
		kinds[n++] = FLAME_KERNEL;
	}
	for (int i = 0; i < (irq ? 0 : f->un); i++) {
		const char *s = f->u[i];
		unsigned char k = FLAME_USER;

		if (f->ulost || stacksym_unresolved(sym, s) || (s[0] == '[' && !l))
			k = FLAME_UNRESOLVED;
		else if (f->inline_marks && f->uinl[i])
			k = FLAME_INLINED;
		else if (l && !l->u[i].mod)
			/* named, yet in no file: a perf map's JIT code, or a
			 * marker ("[...]", a --dwarf stack cut short) */
			k = s[0] == '[' ? FLAME_UNRESOLVED : FLAME_JIT;
		names[n] = s;
		kinds[n++] = k;
	}
	for (int i = 0; i < f->kn; i++) {
		names[n] = f->k[i];
		kinds[n++] = f->klost || stacksym_unresolved(sym, f->k[i]) ? FLAME_UNRESOLVED
									    : FLAME_KERNEL;
	}
	flamesvg_add(g, names, kinds, n, value);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The name an escaped one stands for (escape.h's rule undone: "\\"
 * and "\xNN"), into buf, NUL-terminated: the writer escapes it again,
 * once */
static void unescape(char *buf, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int hi = i + 3 < n && s[i] == '\\' && s[i + 1] == 'x' ? hexval(s[i + 2]) : -1;
		int lo = hi >= 0 ? hexval(s[i + 3]) : -1;

		if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\\') {
			buf[o++] = '\\';
			i++;
		} else if (lo >= 0 && (hi || lo)) {
			buf[o++] = (char)(hi << 4 | lo);
			i += 3;
		} else {
			buf[o++] = s[i];
		}
	}
	buf[o] = 0;
}

static void add_folded(struct flamesvg *g, const char *stack, uint64_t value, uint64_t before)
{
	size_t n = 1, len = strlen(stack);
	char *buf = xmalloc(len + 1), *at = buf;
	const char **names;
	unsigned char *kinds;
	int k = 0;

	for (const char *p = stack; *p; p++)
		n += *p == ';';
	names = xcalloc(n, sizeof(*names));
	kinds = xcalloc(n, 1);
	for (const char *p = stack;; p++) {
		const char *e = strchr(p, ';');
		size_t fl = e ? (size_t)(e - p) : strlen(p);
		bool kernel = k && fl > 4 && !memcmp(p + fl - 4, "_[k]", 4);

		if (kernel)
			fl -= 4;
		unescape(at, p, fl);
		names[k] = at;
		kinds[k] = !k ? FLAME_THREAD :
			   at[0] == '[' && p[fl - 1] == ']' ? FLAME_UNRESOLVED :
			   kernel ? FLAME_KERNEL : FLAME_USER;
		at += strlen(at) + 1;
		k++;
		if (!e)
			break;
		p = e;
	}
	add_path(g, names, kinds, k, value, before);
	free(names);
	free(kinds);
	free(buf);
}

void flamesvg_add_folded(struct flamesvg *g, const char *stack, uint64_t value)
{
	add_folded(g, stack, value, 0);
}

void flamesvg_add_diff(struct flamesvg *g, const char *stack, uint64_t before, uint64_t after)
{
	g->diff = true;
	if (!after && before) {
		g->gone++;
		g->gone_before += before;
	}
	add_folded(g, stack, after, before);
}

void flamesvg_against(struct flamesvg *g, const char *path)
{
	free(g->against);
	g->against = path ? xstrdup(path) : NULL;
	g->diff = true;
}

/* ---- writing ---- */

#define PAD 10
#define FRAME_H 16
#define TOP 84		/* title, notes, legend, search */
#define BOTTOM 30	/* the details line */
#define CHAR_W 7.2	/* 12px monospace */
/* room kept for what is not a frame (head, style, script, notes) */
#define FIXED_MAX 24576

static const char *const kind_names[FLAME_KINDS] = {
	[FLAME_ROOT] = "all", [FLAME_THREAD] = "thread", [FLAME_USER] = "user",
	[FLAME_KERNEL] = "kernel", [FLAME_INLINED] = "inlined", [FLAME_JIT] = "JIT",
	[FLAME_UNRESOLVED] = "unresolved", [FLAME_MERGED] = "merged (< 1 px)",
};

/* hue, saturation and lightness range of each kind */
static const int kind_hsl[FLAME_KINDS][3] = {
	[FLAME_ROOT] = { 0, 0, 80 },	 [FLAME_THREAD] = { 275, 45, 72 },
	[FLAME_USER] = { 205, 65, 66 },	 [FLAME_KERNEL] = { 25, 85, 62 },
	[FLAME_INLINED] = { 175, 55, 58 }, [FLAME_JIT] = { 110, 55, 58 },
	[FLAME_UNRESOLVED] = { 0, 0, 68 }, [FLAME_MERGED] = { 0, 0, 88 },
};

static void sb_str(struct sbuf *b, const char *s)
{
	sbuf_put(b, s, strlen(s));
}

/* Text from a traced process: the suite's escaping (no control byte, no
 * invalid UTF-8 is left), then XML's five; at most max_chars characters
 * (UTF-8 sequences or escapes), ".." ending a name cut short (max_chars
 * 0: no limit) */
static void sb_xml(struct sbuf *b, const char *s, size_t max_chars)
{
	struct sbuf e = { 0 };
	size_t chars = 0, i = 0;

	sbuf_esc(&e, s, false);
	if (!e.p)
		return;
	if (max_chars) {
		for (size_t j = 0; j < e.n; j++)
			chars += ((unsigned char)e.p[j] & 0xc0) != 0x80;
		if (chars <= max_chars) {
			max_chars = 0;
		} else if (max_chars < 3) {
			free(e.p);	/* not even "a.." fits */
			return;
		} else {
			max_chars -= 2;
		}
	}
	for (chars = 0; i < e.n; i++) {
		unsigned char c = (unsigned char)e.p[i];

		if ((c & 0xc0) != 0x80 && max_chars && chars++ == max_chars)
			break;
		switch (c) {
		case '&': sb_str(b, "&amp;"); break;
		case '<': sb_str(b, "&lt;"); break;
		case '>': sb_str(b, "&gt;"); break;
		case '"': sb_str(b, "&quot;"); break;
		case '\'': sb_str(b, "&apos;"); break;
		default: sbuf_put(b, &e.p[i], 1);
		}
	}
	if (max_chars && i < e.n)
		sb_str(b, "..");
	free(e.p);
}

/* A frame as drawn: a node, or the narrow children of one (merged) */
struct fdraw {
	uint32_t node;		/* the node, or the parent of the merged */
	uint32_t nmerged;	/* > 0: a merged box of this many frames */
	int depth;
	uint64_t start, value;	/* in the graph's unit, from the left */
	uint64_t before;	/* differential: the value in the earlier run */
};

struct layout {
	const struct flamesvg *g;
	uint32_t *child_of, *child_idx;	/* children of node i: child_idx[child_of[i]..child_of[i+1]) */
	double scale;			/* pixels per unit */
	VEC(struct fdraw) out;
	size_t narrow, merged;
	uint64_t max_abs;		/* differential: the largest |change| drawn */
};

/* |after - before|, held to INT64_MAX (a file's values go up to 2^64 - 1) */
static uint64_t abs_change(const struct fdraw *d)
{
	uint64_t a = d->value >= d->before ? d->value - d->before : d->before - d->value;

	return a > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : a;
}

static int64_t change_of(const struct fdraw *d)
{
	return d->value >= d->before ? (int64_t)abs_change(d) : -(int64_t)abs_change(d);
}

static uint32_t subtree_size(const struct layout *L, uint32_t n)
{
	uint32_t c = 1;

	for (uint32_t i = L->child_of[n]; i < L->child_of[n + 1]; i++)
		c += subtree_size(L, L->child_idx[i]);
	return c;
}

/* Depth first, children by name: the wide ones drawn, the narrow ones
 * of a frame together (a merged box if that is wide enough) */
static void lay(struct layout *L, uint32_t n, int depth, uint64_t start)
{
	uint64_t at = start, nv = 0, nb = 0;
	uint32_t nn = 0, nframes = 0;

	vec_push(&L->out, ((struct fdraw){ .node = n, .depth = depth, .start = start,
					   .value = L->g->nodes.v[n].value,
					   .before = L->g->nodes.v[n].before }));
	for (uint32_t i = L->child_of[n]; i < L->child_of[n + 1]; i++) {
		uint32_t c = L->child_idx[i];
		uint64_t v = L->g->nodes.v[c].value;

		if (!v && L->g->nodes.v[c].before)
			continue;	/* gone: only in the earlier run (counted apart) */
		if (v * L->scale < FLAMESVG_MIN_PX) {
			nv += v;
			nb += L->g->nodes.v[c].before;
			nn++;
			nframes += subtree_size(L, c);
			continue;
		}
		lay(L, c, depth + 1, at);
		at += v;
	}
	if (!nn)
		return;
	L->narrow += nframes;
	if (nv * L->scale >= FLAMESVG_MIN_PX) {
		vec_push(&L->out, ((struct fdraw){ .node = n, .nmerged = nn, .depth = depth + 1,
						   .start = at, .value = nv, .before = nb }));
		L->merged++;
	}
}

static const struct flamesvg *sort_g;
static int by_name(const void *a, const void *b)
{
	const struct fnode *x = &sort_g->nodes.v[*(const uint32_t *)a];
	const struct fnode *y = &sort_g->nodes.v[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static int by_depth(const void *a, const void *b)
{
	const struct fdraw *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void children_index(struct layout *L)
{
	const struct flamesvg *g = L->g;
	size_t n = g->nodes.n;
	uint32_t *fill = xcalloc(n + 1, sizeof(*fill));

	L->child_of = xcalloc(n + 1, sizeof(*L->child_of));
	L->child_idx = xcalloc(n ? n : 1, sizeof(*L->child_idx));
	for (size_t i = 1; i < n; i++)
		L->child_of[g->nodes.v[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		L->child_of[i + 1] += L->child_of[i];
	for (size_t i = 1; i < n; i++) {
		uint32_t p = g->nodes.v[i].parent;

		L->child_idx[L->child_of[p] + fill[p]++] = (uint32_t)i;
	}
	sort_g = g;
	for (size_t i = 0; i < n; i++)
		qsort(L->child_idx + L->child_of[i], L->child_of[i + 1] - L->child_of[i],
		      sizeof(uint32_t), by_name);
	free(fill);
}

static void fill_of(char *buf, size_t size, int kind, const char *name)
{
	const int *h = kind_hsl[kind];
	/* the same name, the same shade: lightness varies by its hash */
	int light = h[2] + (int)(hash_str(name) % 13) - 6;

	snprintf(buf, size, "hsl(%d,%d%%,%d%%)", h[0], h[1], light);
}

void flamesvg_diff_fill(char *buf, size_t size, int64_t change, uint64_t max_abs)
{
	uint64_t a = change < 0 ? -(uint64_t)change : (uint64_t)change;
	int light;

	if (!change || !max_abs) {
		snprintf(buf, size, "hsl(0,0%%,90%%)");
		return;
	}
	if (a > max_abs)
		a = max_abs;
	if (max_abs > 1ull << 56) {	/* 80 * a and 2 * max_abs within 64 bits */
		a >>= 8;
		max_abs >>= 8;
	}
	/* 90 - round(40 * a / max_abs), in integers */
	light = 90 - (int)((80 * a + max_abs) / (2 * max_abs));
	snprintf(buf, size, "hsl(%d,80%%,%d%%)", change > 0 ? 0 : 220, light);
}

/* A change with its sign: "+12", "-3", "0" */
static void sb_change(struct sbuf *b, int64_t change)
{
	sbuf_printf(b, "%s%lld", change > 0 ? "+" : "", (long long)change);
}

static void share(char *buf, size_t size, uint64_t v, uint64_t total)
{
	snprintf(buf, size, "%.2f%%", total ? 100.0 * (double)v / (double)total : 0.0);
}

/* One frame: <g> with its place in the graph's unit (data-s start,
 * data-v value, data-d depth), <title> (full name, value, share), <rect>
 * and <text>, placed for the whole graph */
static void frame_svg(struct sbuf *b, const struct layout *L, const struct fdraw *d,
		      const struct flamesvg_meta *m, uint64_t total)
{
	const struct fnode *nd = &L->g->nodes.v[d->node];
	int kind = d->nmerged ? FLAME_MERGED : nd->kind;
	double x = PAD + (double)d->start * L->scale, w = (double)d->value * L->scale;
	int y = -(d->depth + 1) * FRAME_H;
	char name[64], fill[48], pct[32];
	const char *nm = nd->name;
	size_t fit = w > 6 + CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;

	if (d->nmerged) {
		snprintf(name, sizeof(name), "[%u frames < 1 px]", d->nmerged);
		nm = name;
	}
	if (L->g->diff)
		flamesvg_diff_fill(fill, sizeof(fill), change_of(d), L->max_abs);
	else
		fill_of(fill, sizeof(fill), kind, nm);
	share(pct, sizeof(pct), d->value, total);
	sbuf_printf(b, "<g class=\"f k%d", kind);
	if (L->g->diff)
		sbuf_printf(b, " %s", d->value > d->before ? "grew" :
			    d->value < d->before ? "shrank" : "same");
	sbuf_printf(b, "\" data-s=\"%llu\" data-v=\"%llu\" data-d=\"%d\"",
		  (unsigned long long)d->start, (unsigned long long)d->value, d->depth);
	if (L->g->diff)
		sbuf_printf(b, " data-b=\"%llu\"", (unsigned long long)d->before);
	sb_str(b, "><title>");
	sb_xml(b, nm, 0);
	sbuf_printf(b, " (%llu ", (unsigned long long)d->value);
	sb_xml(b, m->unit, 0);
	sbuf_printf(b, ", %s", pct);
	if (L->g->diff) {
		sbuf_printf(b, "; before %llu, change ", (unsigned long long)d->before);
		sb_change(b, change_of(d));
		sb_str(b, " ");
		sb_xml(b, m->unit, 0);
	}
	sbuf_printf(b, ")</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		  "fill=\"%s\"/><text x=\"%.2f\" y=\"%d\">", x, y, w, FRAME_H - 1, fill,
		  x + 3, y + FRAME_H - 4);
	if (fit)
		sb_xml(b, nm, fit);	/* nothing when even 3 characters do not fit */
	sb_str(b, "</text></g>\n");
}

/* The script: the frames' data-* attributes are all it reads.  Written
 * for this file (no outside code). */
static const char script[] =
"(function () {\n"
"var doc = document, svgns = 'http://www.w3.org/2000/svg';\n"
"var root = doc.getElementById('frames');\n"
"var W = +root.getAttribute('data-width'), PAD = +root.getAttribute('data-pad');\n"
"var CW = +root.getAttribute('data-charw'), UNIT = root.getAttribute('data-unit');\n"
"var all = [], els = root.getElementsByTagName('g'), total = 0;\n"
"for (var i = 0; i < els.length; i++) {\n"
"  var g = els[i], t = g.getElementsByTagName('title')[0].textContent;\n"
"  var f = { g: g, s: +g.getAttribute('data-s'), v: +g.getAttribute('data-v'),\n"
"            b: g.getAttribute('data-b'), d: +g.getAttribute('data-d'), name: t.slice(0, t.lastIndexOf(' (')),\n"
"            r: g.getElementsByTagName('rect')[0], x: g.getElementsByTagName('text')[0] };\n"
"  f.fill = f.r.getAttribute('fill');\n"
"  if (f.d === 0) total = f.v;\n"
"  g.flame = f; all.push(f);\n"
"}\n"
"function pct(v, of) { return of > 0 ? (100 * v / of).toFixed(2) + '%' : '0.00%'; }\n"
"function label(f, w) {\n"
"  var n = Math.floor((w - 6) / CW), c = Array.from(f.name);\n"
"  if (c.length <= n) return f.name;\n"
"  return n >= 3 ? c.slice(0, n - 2).join('') + '..' : '';\n"
"}\n"
"var zoomed = null;\n"
"function zoom(z) {\n"
"  zoomed = z && z.d > 0 ? z : null;\n"
"  var s0 = zoomed ? z.s : 0, v0 = zoomed ? z.v : total, d0 = zoomed ? z.d : 0;\n"
"  var k = v0 > 0 ? (W - 2 * PAD) / v0 : 0;\n"
"  all.forEach(function (f) {\n"
"    var x, w, show = true, anc = false;\n"
"    if (f.d < d0) {\n"
"      show = f.s <= s0 && f.s + f.v >= s0 + v0; anc = true; x = PAD; w = W - 2 * PAD;\n"
"    } else if (f.s >= s0 && f.s + f.v <= s0 + v0) {\n"
"      x = PAD + (f.s - s0) * k; w = f.v * k;\n"
"    } else show = false;\n"
"    f.g.style.display = show ? '' : 'none';\n"
"    if (!show) return;\n"
"    f.r.setAttribute('x', x.toFixed(2)); f.r.setAttribute('width', w.toFixed(2));\n"
"    f.x.setAttribute('x', (x + 3).toFixed(2)); f.x.textContent = label(f, w);\n"
"    f.g.style.opacity = anc ? '0.6' : '';\n"
"  });\n"
"  doc.getElementById('unzoom').style.display = zoomed ? '' : 'none';\n"
"  if (query) search(query);\n"
"}\n"
"function details(f) {\n"
"  doc.getElementById('details').textContent = f ? f.name + ': ' + f.v + ' ' + UNIT + ', ' +\n"
"    pct(f.v, total) + ' of the total' + (zoomed ? ', ' + pct(f.v, zoomed.v) + ' of the zoomed frame' : '') +\n"
"    (f.b === null ? '' : '; before ' + f.b + ' ' + UNIT + ', change ' + (f.v > +f.b ? '+' : '') +\n"
"     (f.v - f.b) + ' ' + UNIT) : ' ';\n"
"}\n"
"var query = '';\n"
"function search(q) {\n"
"  query = q;\n"
"  var hit = [];\n"
"  all.forEach(function (f) {\n"
"    var m = q !== '' && f.name.indexOf(q) >= 0;\n"
"    f.r.setAttribute('fill', m ? 'rgb(230,0,230)' : f.fill);\n"
"    if (m) hit.push(f);\n"
"  });\n"
"  /* a match inside another match is already counted */\n"
"  hit.sort(function (a, b) { return a.s - b.s || b.v - a.v; });\n"
"  var sum = 0, end = -1;\n"
"  hit.forEach(function (f) { if (f.s >= end) { sum += f.v; end = f.s + f.v; } });\n"
"  var out = doc.getElementById('matched');\n"
"  out.textContent = q === '' ? ' ' : 'Matched \"' + q + '\": ' + pct(sum, total) + ' of the total (' +\n"
"    sum + ' ' + UNIT + ', ' + hit.length + ' frames)';\n"
"  out.setAttribute('data-share', total > 0 ? String(100 * sum / total) : '0');\n"
"}\n"
"function frameOf(e) {\n"
"  for (var n = e.target; n && n !== root; n = n.parentNode) if (n.flame) return n.flame;\n"
"  return null;\n"
"}\n"
"root.addEventListener('click', function (e) { var f = frameOf(e); if (f) zoom(f); });\n"
"root.addEventListener('mouseover', function (e) { details(frameOf(e)); });\n"
"root.addEventListener('mouseout', function () { details(null); });\n"
"doc.getElementById('unzoom').addEventListener('click', function () { zoom(null); });\n"
"var box = doc.getElementById('search');\n"
"if (box) box.addEventListener('input', function () { search(box.value); });\n"
"window.flamegraph = { zoom: function (f) { zoom(f ? f.flame || f : null); }, search: search,\n"
"  frames: all, total: total };\n"
"})();\n";

static const char style[] =
"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
"g.f text { pointer-events: none; }\n"
"g.f rect { stroke: #fff; stroke-width: 0.5; }\n"
"g.f:hover rect { stroke: #000; stroke-width: 1; }\n"
"#title { font-size: 16px; font-weight: bold; }\n"
".note { fill: #444; }\n"
"#unzoom { cursor: pointer; fill: #1a5fb4; }\n";

/* The header: everything above the frames (sizes known) */
/* Differential: the colour ramp from the largest shrink to the largest
 * growth, its ends and middle labelled in the unit, at (x, y) */
static void diff_legend(struct sbuf *b, const struct flamesvg_meta *m, int x, int y,
			uint64_t max_abs)
{
	static const int steps = 5;	/* swatches each way */
	char left[64];

	snprintf(left, sizeof(left), "shrank (blue) -%llu ", (unsigned long long)max_abs);
	sbuf_printf(b, "<g id=\"diff-legend\" data-max=\"%llu\">"
		  "<text class=\"note\" x=\"%d\" y=\"%d\">%s", (unsigned long long)max_abs, x, y,
		  left);
	sb_xml(b, m->unit, 0);
	sb_str(b, "</text>\n");
	x += (int)((double)(strlen(left) + strlen(m->unit) + 1) * CHAR_W);
	for (int i = -steps; i <= steps; i++) {
		uint64_t step = (uint64_t)(i < 0 ? -i : i);
		/* max_abs * step / steps, within 64 bits (max_abs <= INT64_MAX) */
		int64_t c = (int64_t)(max_abs / steps * step + max_abs % steps * step / steps);
		char fill[48];

		c = i < 0 ? -c : c;
		flamesvg_diff_fill(fill, sizeof(fill), c, max_abs);
		sbuf_printf(b, "<rect class=\"ramp\" x=\"%d\" y=\"%d\" width=\"18\" height=\"12\" "
			  "fill=\"%s\" data-c=\"%lld\"><title>", x, y - 10, fill, (long long)c);
		sb_change(b, c);
		sb_str(b, " ");
		sb_xml(b, m->unit, 0);
		sb_str(b, "</title></rect>\n");
		x += 18;
	}
	sbuf_printf(b, "<text class=\"note\" x=\"%d\" y=\"%d\">+%llu ", x + 6, y,
		  (unsigned long long)max_abs);
	sb_xml(b, m->unit, 0);
	sb_str(b, " grew (red); grey: unchanged</text></g>\n");
}

static void head_svg(struct sbuf *b, const struct flamesvg *g, const struct flamesvg_meta *m,
		     int height, int top, uint64_t total, const struct flamesvg_stats *st,
		     size_t max_bytes)
{
	int x, y = 22;

	sbuf_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		  "height=\"%d\" viewBox=\"0 0 %d %d\">\n<style>\n",
		  FLAMESVG_WIDTH, height, FLAMESVG_WIDTH, height);
	sb_str(b, style);
	sb_str(b, "</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fdfdf6\"/>\n");
	sbuf_printf(b, "<text id=\"title\" x=\"%d\" y=\"%d\">", PAD, y);
	sb_xml(b, m->tool, 0);
	sb_str(b, ": ");
	sb_xml(b, m->what, 0);
	sb_str(b, " of ");
	sb_xml(b, m->target, 0);
	if (m->window) {
		sb_str(b, ", ");
		sb_xml(b, m->window, 0);
	}
	if (g->diff && g->against) {
		sb_str(b, ", against ");
		sb_xml(b, g->against, 0);
	}
	sb_str(b, "</text>\n");
	y += 18;
	sbuf_printf(b, "<text class=\"note\" id=\"subtitle\" x=\"%d\" y=\"%d\">Total %llu ", PAD, y,
		  (unsigned long long)total);
	sb_xml(b, m->unit, 0);
	sb_str(b, "; a frame's width is its share of the total. Click a frame to zoom, "
		  "hover for details.");
	if (st->narrow)
		sbuf_printf(b, " %zu frame%s narrower than %g px not drawn (%zu grey box%s hold "
			  "some of them).", st->narrow, st->narrow == 1 ? "" : "s", FLAMESVG_MIN_PX,
			  st->merged, st->merged == 1 ? "" : "es");
	sb_str(b, "</text>\n");
	if (st->cut) {
		y += 16;
		sbuf_printf(b, "<text class=\"note\" id=\"cut\" x=\"%d\" y=\"%d\">%zu frame%s from "
			  "depth %d on cut to keep the file under %zu bytes.</text>\n", PAD, y,
			  st->cut, st->cut == 1 ? "" : "s", st->cut_depth, max_bytes);
	}
	if (g->diff) {
		y += 16;
		sbuf_printf(b, "<text class=\"note\" id=\"diff-note\" x=\"%d\" y=\"%d\" "
			  "data-gone=\"%zu\" data-gone-before=\"%llu\">Colours: each frame's change "
			  "against the earlier run (%llu ", PAD, y,
			  st->gone, (unsigned long long)st->gone_before,
			  (unsigned long long)g->nodes.v[0].before);
		sb_xml(b, m->unit, 0);
		sbuf_printf(b, " in all). %zu stack%s gone (only before, no width now): %llu ",
			  st->gone, st->gone == 1 ? "" : "s",
			  (unsigned long long)st->gone_before);
		sb_xml(b, m->unit, 0);
		sb_str(b, " before.</text>\n");
	}
	y = top - 20;
	x = PAD;
	if (g->diff)
		diff_legend(b, m, x, y, st->max_change);
	for (int k = FLAME_THREAD; k < FLAME_KINDS && !g->diff; k++) {
		char fill[48];

		fill_of(fill, sizeof(fill), k, "");
		sbuf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			  "<text class=\"note\" x=\"%d\" y=\"%d\">", x, y - 10, fill, x + 16, y);
		sb_xml(b, kind_names[k], 0);
		sb_str(b, "</text>\n");
		x += 16 + (int)(strlen(kind_names[k]) * CHAR_W) + 14;
	}
	sbuf_printf(b, "<foreignObject x=\"%d\" y=\"%d\" width=\"260\" height=\"22\">"
		  "<input xmlns=\"http://www.w3.org/1999/xhtml\" id=\"search\" type=\"search\" "
		  "placeholder=\"search frames\" style=\"width:250px\"/></foreignObject>\n",
		  FLAMESVG_WIDTH - PAD - 260, y - 16);
	sbuf_printf(b, "<text id=\"unzoom\" x=\"%d\" y=\"%d\" style=\"display:none\">"
		  "[reset zoom]</text>\n", FLAMESVG_WIDTH - PAD - 380, y);
	sbuf_printf(b, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		  FLAMESVG_WIDTH - PAD, top - 2);
}

int flamesvg_write(struct flamesvg *g, FILE *f, const struct flamesvg_meta *m,
		   size_t max_bytes, struct flamesvg_stats *stp)
{
	struct layout L = { .g = g };
	struct flamesvg_stats st = { .frames = g->nodes.n };
	struct sbuf body = { 0 }, head = { 0 }, tail = { 0 };
	uint64_t total = g->nodes.v[0].value;
	size_t budget, i, *offs;
	int depth = 0, height, top;

	if (!max_bytes)
		max_bytes = FLAMESVG_MAX_BYTES;
	L.scale = total ? (double)(FLAMESVG_WIDTH - 2 * PAD) / (double)total : 0;
	children_index(&L);
	if (total)
		lay(&L, 0, 0, 0);
	else
		vec_push(&L.out, ((struct fdraw){ 0 }));
	st.narrow = L.narrow;
	st.merged = L.merged;
	for (i = 0; i < L.out.n && g->diff; i++)
		if (abs_change(&L.out.v[i]) > L.max_abs)
			L.max_abs = abs_change(&L.out.v[i]);
	st.max_change = L.max_abs;
	st.gone = g->gone;
	st.gone_before = g->gone_before;
	/* shallow first: when the cap is reached, the deepest frames go */
	qsort(L.out.v, L.out.n, sizeof(*L.out.v), by_depth);
	budget = max_bytes > FIXED_MAX ? max_bytes - FIXED_MAX : 0;
	offs = xcalloc(L.out.n + 1, sizeof(*offs));
	for (i = 0; i < L.out.n; i++) {
		offs[i] = body.n;
		frame_svg(&body, &L, &L.out.v[i], m, total);
		if (body.n > budget && L.out.v[i].depth > 0) {
			/* over the cap: this depth and the deeper ones go (a
			 * whole depth, not part of one) */
			int d = L.out.v[i].depth;

			while (i > 0 && L.out.v[i - 1].depth == d)
				i--;
			body.n = offs[i];
			st.cut = L.out.n - i;
			st.cut_depth = d;
			break;
		}
		depth = L.out.v[i].depth;
	}
	if (st.cut)
		depth = st.cut_depth - 1;
	st.drawn = L.out.n - st.cut;
	/* a line for the cut, one for the differential note */
	top = TOP + (st.cut ? 16 : 0) + (g->diff ? 16 : 0);
	height = top + 10 + (depth + 1) * FRAME_H + BOTTOM;
	head_svg(&head, g, m, height, top, total, &st, max_bytes);
	sbuf_printf(&head, "<g id=\"frames\" transform=\"translate(0,%d)\" data-width=\"%d\" "
		  "data-pad=\"%d\" data-charw=\"%g\" data-unit=\"", height - BOTTOM,
		  FLAMESVG_WIDTH, PAD, CHAR_W);
	sb_xml(&head, m->unit, 0);
	sb_str(&head, "\">\n");
	sbuf_printf(&tail, "</g>\n<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		  "<script type=\"text/javascript\"><![CDATA[\n", PAD, height - 10);
	sb_str(&tail, script);
	sb_str(&tail, "]]></script>\n</svg>\n");
	if (head.p)
		fwrite(head.p, 1, head.n, f);
	if (body.p)
		fwrite(body.p, 1, body.n, f);
	fwrite(tail.p, 1, tail.n, f);
	free(head.p);
	free(body.p);
	free(tail.p);
	free(offs);
	free(L.child_of);
	free(L.child_idx);
	vec_free(&L.out);
	if (stp)
		*stp = st;
	return ferror(f) ? -1 : 0;
}

FILE *flamesvg_open(const char *path)
{
	FILE *f;

	if (!*path)
		die_usage("--svg: empty path");
	if (!strcmp(path, "-"))
		die_usage("--svg: give a file (the report is on stdout)");
	f = out_open(path, "--svg");
	if (!f)
		die_usage("--svg: cannot write %s: %s", path, strerror(errno));
	return f;
}

int flamesvg_finish(struct flamesvg *g, FILE *f, const struct flamesvg_meta *m)
{
	int r = flamesvg_write(g, f, m, 0, NULL);

	return out_close(f) || r ? -1 : 0;
}

void flamesvg_window(char *buf, size_t size, uint64_t start_ns, uint64_t end_ns,
		     int64_t realtime_offset_ns)
{
	double secs = end_ns > start_ns ? (double)(end_ns - start_ns) / 1e9 : 0;
	time_t t;
	struct tm tm;
	char when[64] = "";

	t = (time_t)(((int64_t)start_ns + realtime_offset_ns) / 1000000000ll);
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(buf, size, "%.1f s from %s", secs, when);
}

void flamesvg_run_window(char *buf, size_t size)
{
	uint64_t mono = now_ns(), wall = realtime_ns();

	if (!run_start_ns || run_start_ns > mono)
		snprintf(buf, size, "%.1f s", run_end_ns > run_start_ns ?
			 (double)(run_end_ns - run_start_ns) / 1e9 : 0);
	else
		flamesvg_window(buf, size, run_start_ns, run_end_ns, (int64_t)(wall - mono));
}

int flamesvg_finish_run(struct flamesvg *g, FILE *f, const char *tool, const char *what,
			const char *unit, const struct common_opts *o)
{
	char who[420], window[96];
	struct flamesvg_meta m = { .tool = tool, .what = what, .target = who, .unit = unit,
				   .window = window };
	int r;

	common_opts_target(o, who, sizeof(who));
	flamesvg_run_window(window, sizeof(window));
	r = flamesvg_finish(g, f, &m);
	flamesvg_free(g);
	return r;
}
