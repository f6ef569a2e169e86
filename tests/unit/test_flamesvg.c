// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The flame graph writer (tools/lib/flamesvg.h): the SVG of known stacks
 * read back element by element: the frames' widths and places, the
 * escaping of hostile names, the frames narrower than a pixel, the size
 * cap, the kinds of a stack tool's frames. */
#include "unit.h"
#include "flamesvg.h"

#include <stdlib.h>

static const struct flamesvg_meta meta = {
	.tool = "offcputime", .what = "off-CPU time", .target = "pid 42", .unit = "us",
	.window = "5.0 s from 2026-12-04 05:00:00 UTC",
};

static char *write_svg(struct flamesvg *g, size_t cap, struct flamesvg_stats *st, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	CHECK(flamesvg_write(g, f, &meta, cap, st) == 0, "the SVG is written");
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/* The <g> of the frame whose <title> begins with "name (": its text
 * up to </g>, in a static buffer (NULL: none) */
static const char *frame_of(const char *svg, const char *name)
{
	static char out[4096];
	char key[512];
	const char *t, *g, *e;

	snprintf(key, sizeof(key), "<title>%s (", name);
	t = strstr(svg, key);
	if (!t)
		return NULL;
	for (g = t; g > svg && strncmp(g, "<g class=\"f", 11); g--)
		;
	e = strstr(t, "</g>");
	snprintf(out, sizeof(out), "%.*s", (int)(e - g), g);
	return out;
}

/* An attribute of the frame's <rect> (or the <g>'s with rect false) */
static char *attr(const char *frame, bool rect, const char *name)
{
	static char out[256];
	char key[64];
	const char *p = rect ? strstr(frame, "<rect") : frame, *e;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = p ? strstr(p, key) : NULL;
	if (!p)
		return NULL;
	p += strlen(key);
	e = strchr(p, '"');
	snprintf(out, sizeof(out), "%.*s", (int)(e - p), p);
	return out;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void add(struct flamesvg *g, const char *a, const char *b, const char *c, uint64_t v)
{
	const char *names[3] = { a, b, c };
	const unsigned char kinds[3] = { FLAME_THREAD, FLAME_USER, FLAME_KERNEL };

	flamesvg_add(g, names, kinds, c ? 3 : 2, v);
}

/* 1180 px (1200 less 10 on each side) shared as the values are */
static void test_widths(void)
{
	struct flamesvg *g = flamesvg_new();
	struct flamesvg_stats st;
	const char *f;
	char *svg;

	add(g, "A", "b", "k1", 30);
	add(g, "A", "c", NULL, 10);
	add(g, "B", "d", NULL, 60);
	add(g, "A", "b", "k1", 0);	/* the same path: one frame */
	svg = write_svg(g, 0, &st, NULL);
	CHECK_U64(st.frames, 7, "frames: the root, A b c k1, B d");
	CHECK_U64(st.drawn, 7, "all drawn");
	CHECK_U64(st.narrow + st.cut + st.merged, 0, "none left out");
	f = frame_of(svg, "all");
	CHECK(f != NULL, "the root is a frame");
	CHECK_STR(f ? attr(f, true, "width") : NULL, "1180.00", "the root is the full width");
	CHECK_STR(f ? attr(f, false, "data-v") : NULL, "100", "the root holds the total");
	f = frame_of(svg, "A");
	CHECK_STR(f ? attr(f, true, "width") : NULL, "472.00", "A: 40 of 100");
	CHECK_STR(f ? attr(f, true, "x") : NULL, "10.00", "A first (by name)");
	CHECK_STR(f ? attr(f, false, "class") : NULL, "f k1", "A is a thread");
	f = frame_of(svg, "B");
	CHECK_STR(f ? attr(f, true, "width") : NULL, "708.00", "B: 60 of 100");
	CHECK_STR(f ? attr(f, true, "x") : NULL, "482.00", "B after A");
	f = frame_of(svg, "b");
	CHECK_STR(f ? attr(f, true, "width") : NULL, "354.00", "b: 30 of 100");
	CHECK_STR(f ? attr(f, true, "y") : NULL, "-48", "b one level above A");
	f = frame_of(svg, "c");
	CHECK_STR(f ? attr(f, true, "x") : NULL, "364.00", "c after b");
	CHECK_STR(f ? attr(f, false, "data-s") : NULL, "30", "c starts at 30");
	f = frame_of(svg, "k1");
	CHECK_STR(f ? attr(f, false, "class") : NULL, "f k3", "k1 is a kernel frame");
	CHECK(strstr(svg, "<title>b (30 us, 30.00%)</title>") != NULL,
	      "the title holds name, value, unit and share");
	CHECK(strstr(svg, ">offcputime: off-CPU time of pid 42, 5.0 s from 2026-12-04 "
		      "05:00:00 UTC</text>") != NULL, "the title: tool, what, target, window");
	CHECK(strstr(svg, "Total 100 us;") != NULL, "the total and unit are said");
	CHECK(strstr(svg, "not drawn") == NULL, "nothing said left out");
	CHECK(count(svg, "<script") == 1 && count(svg, "<style>") == 1, "script and style inline");
	CHECK(strstr(svg, "href") == NULL && strstr(svg, "url(") == NULL, "nothing from elsewhere");
	CHECK(!strcmp(svg + strlen(svg) - 7, "</svg>\n"), "the file ends the SVG");
	free(svg);
	flamesvg_free(g);
}

static void test_escaping(void)
{
	struct flamesvg *g = flamesvg_new();
	char *svg;
	const char *f;

	add(g, "ev\x1b[31m\nil", "a<b>&\"'c]]>\xff\xc0\x80;d", NULL, 10);
	svg = write_svg(g, 0, NULL, NULL);
	CHECK(strstr(svg, "<title>ev\\x1b[31m\\x0ail (10 us") != NULL,
	      "control bytes escaped as \\xNN");
	f = frame_of(svg, "a&lt;b&gt;&amp;&quot;&apos;c]]&gt;\\xff\\xc0\\x80;d");
	CHECK(f != NULL, "XML's five escaped, invalid UTF-8 (and an overlong form) as \\xNN");
	CHECK_U64(count(svg, "]]>"), 1, "\"]]>\" only where the script's CDATA ends");
	CHECK(strchr(svg, '\x1b') == NULL && strchr(svg, '\xff') == NULL, "no raw hostile byte");
	for (const char *p = svg; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n') {
			CHECK(0, "a control byte at %zu", (size_t)(p - svg));
			break;
		}
	free(svg);
	flamesvg_free(g);

	/* a name cut to its frame: ".." at the end, a UTF-8 character whole */
	g = flamesvg_new();
	add(g, "T", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9", NULL, 5);	/* 12 x U+00E9 */
	add(g, "T", "z", NULL, 995);
	svg = write_svg(g, 0, NULL, NULL);
	/* 5 of 1000: 5.9 px: no room for 3 characters (7.2 px each): no text */
	f = frame_of(svg, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	CHECK(f && strstr(f, "></text>"), "a frame too narrow for a label has none");
	free(svg);
	flamesvg_free(g);
	g = flamesvg_new();
	add(g, "T", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		"\xc3\xa9\xc3\xa9\xc3\xa9", NULL, 50);
	add(g, "T", "z", NULL, 950);
	svg = write_svg(g, 0, NULL, NULL);
	/* 59 px: (59 - 6) / 7.2 = 7 characters: 5 and ".." */
	f = frame_of(svg, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	CHECK(f && strstr(f, ">\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..</text>"),
	      "a long name is cut between characters, \"..\" after");
	free(svg);
	flamesvg_free(g);
}

/* Frames narrower than a pixel: one grey frame for them when they make a
 * pixel together, none otherwise; counted either way */
static void test_narrow(void)
{
	struct flamesvg *g = flamesvg_new();
	struct flamesvg_stats st;
	char name[32], *svg;
	const char *f;

	add(g, "T", "big", NULL, 1000000);
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "tiny%d", i);
		add(g, "T", name, "below", 10);	/* 0.0118 px each, 23.6 together */
	}
	add(g, "U", "u", NULL, 400);	/* 0.47 px, under the 1 px of U */
	svg = write_svg(g, 0, &st, NULL);
	CHECK_U64(st.narrow, 4000 + 2, "the 2000 narrow frames, each with its child, and U's");
	CHECK_U64(st.merged, 1, "one merged frame");
	f = frame_of(svg, "[2000 frames &lt; 1 px]");
	CHECK(f != NULL, "the merged frame says how many it holds");
	CHECK_STR(f ? attr(f, false, "data-v") : NULL, "20000", "it holds their value");
	CHECK_STR(f ? attr(f, false, "class") : NULL, "f k7", "of its own kind");
	CHECK_STR(f ? attr(f, false, "data-s") : NULL, "1000000", "after the wide ones");
	CHECK(frame_of(svg, "tiny7") == NULL && frame_of(svg, "below") == NULL,
	      "the narrow frames are not drawn");
	CHECK(frame_of(svg, "U") == NULL, "a narrow thread neither (0.47 px alone)");
	CHECK(strstr(svg, "4002 frames narrower than 1 px not drawn (1 grey box hold") != NULL,
	      "what was left out is said in the SVG");
	CHECK_U64(st.drawn, 4, "drawn: all, T, big, the merged frame; nothing of U");
	free(svg);
	flamesvg_free(g);
}

/* The size cap: the deepest frames go first, whole depths; said */
static void test_cap(void)
{
	struct flamesvg *g = flamesvg_new();
	struct flamesvg_stats st;
	const char *names[101];
	unsigned char kinds[101];
	char buf[101][32], *svg, note[128];
	size_t len, full;

	for (int s = 0; s < 100; s++) {
		for (int i = 0; i <= 100; i++) {
			snprintf(buf[i], sizeof(buf[i]), "s%d_f%d", s, i);
			names[i] = buf[i];
			kinds[i] = i ? FLAME_USER : FLAME_THREAD;
		}
		flamesvg_add(g, names, kinds, 101, 1000);
	}
	svg = write_svg(g, 0, &st, &full);
	CHECK_U64(st.cut, 0, "uncapped: nothing cut (%zu bytes)", full);
	CHECK_U64(st.drawn, 1 + 100 * 101, "every frame drawn");
	free(svg);
	svg = write_svg(g, 200000, &st, &len);
	CHECK(len <= 200000, "the file keeps under the cap (%zu bytes)", len);
	CHECK(len > 150000, "and uses it (%zu bytes)", len);
	CHECK(st.cut > 0 && st.drawn + st.cut == 1 + 100 * 101, "frames cut: %zu", st.cut);
	CHECK(st.cut % 100 == 0, "whole depths cut (%zu frames: 100 a depth)", st.cut);
	snprintf(note, sizeof(note), "%zu frames from depth %d on cut to keep the file under "
		 "200000 bytes.", st.cut, st.cut_depth);
	CHECK(strstr(svg, note) != NULL, "the cut is said: %s", note);
	snprintf(note, sizeof(note), "data-d=\"%d\"", st.cut_depth - 1);
	CHECK(strstr(svg, note) != NULL, "the depth above the cut is there");
	snprintf(note, sizeof(note), "data-d=\"%d\"", st.cut_depth);
	CHECK(strstr(svg, note) == NULL, "the cut depth is not");
	CHECK(!strcmp(svg + len - 7, "</svg>\n"), "the capped file still ends the SVG");
	free(svg);
	flamesvg_free(g);
}

/* A stack tool's entry: comm, user frames, kernel frames, each of its kind */
static void test_kinds(void)
{
	struct flamesvg *g = flamesvg_new();
	struct stack_frames *f = calloc(1, sizeof(*f));
	struct stack_locs *l = calloc(1, sizeof(*l));
	struct stack_module mod = { .path = "/usr/bin/app", .start = 0x1000, .end = 0x2000 };
	char *svg;
	const char *fr;

	f->u[0] = "main";
	f->u[1] = "inl";
	f->u[2] = "jitted";
	f->u[3] = "app+0x123";
	f->un = 4;
	f->inline_marks = true;
	f->uinl[1] = true;
	l->u[0].mod = l->u[1].mod = l->u[3].mod = &mod;	/* jitted: in no file */
	f->k[0] = "do_syscall_64";
	f->kn = 1;
	flamesvg_add_stack(g, NULL, "app", NULL, f, l, 7);
	memset(f, 0, sizeof(*f));
	f->u[0] = FRAME_USER_LOST;
	f->un = 1;
	f->ulost = true;
	f->k[0] = FRAME_KERNEL_LOST;
	f->kn = 1;
	f->klost = true;
	flamesvg_add_stack(g, NULL, "", NULL, f, NULL, 3);
	/* interrupt context: its label, its name, the kernel frames; no user frame */
	memset(f, 0, sizeof(*f));
	f->u[0] = "interrupted_user";
	f->un = 1;
	f->k[0] = "net_rx_action";
	f->kn = 1;
	flamesvg_add_stack(g, NULL, "[softirq]", "[NET_RX]", f, NULL, 5);
	svg = write_svg(g, 0, NULL, NULL);
#define KIND(name, k, what)                                                    \
	fr = frame_of(svg, name);                                              \
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k" #k, what)
	KIND("app", 1, "the comm: a thread");
	KIND("main", 2, "a user frame");
	KIND("inl", 4, "an inlined function");
	KIND("jitted", 5, "named, in no file: JIT");
	KIND("do_syscall_64", 3, "a kernel frame");
	KIND("[unknown]", 1, "an empty comm is [unknown], a thread");
	KIND("[user stack lost]", 6, "a lost user stack: unresolved");
	KIND("[kernel stack lost]", 6, "a lost kernel stack: unresolved");
	KIND("[softirq]", 1, "an interrupt context in the place of the thread");
	KIND("[NET_RX]", 3, "its name, a kernel frame");
	fr = frame_of(svg, "net_rx_action");
	CHECK_STR(fr ? attr(fr, false, "data-d") : NULL, "3", "the kernel frames above it");
	CHECK(frame_of(svg, "interrupted_user") == NULL, "no user frame in interrupt context");
	free(svg);
	free(f);
	free(l);
	flamesvg_free(g);
}

/* A folded line as hotcheck's bundle has it: the thread first, "_[k]"
 * frames kernel without the mark, "[...]" unresolved, names already
 * escaped by the suite's rule written once (XML still escaped) */
static void test_folded(void)
{
	struct flamesvg *g = flamesvg_new();
	char *svg;
	const char *fr;

	flamesvg_add_folded(g, "app\\x1b;main;a<b;[unknown];do_sys_poll_[k];schedule_[k]", 30);
	flamesvg_add_folded(g, "app\\x1b;main;a<b;x\\\\y", 10);
	flamesvg_add_folded(g, "[no stack]", 5);
	flamesvg_add_folded(g, "k;[unknown]_[k]", 5);
	svg = write_svg(g, 0, NULL, NULL);
	fr = frame_of(svg, "app\\x1b");
	CHECK(fr != NULL, "an escaped comm is written as it was, not escaped twice");
	CHECK(frame_of(svg, "app\\\\x1b") == NULL, "no doubled backslash");
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k1", "the first frame is the thread");
	CHECK_STR(fr ? attr(fr, false, "data-v") : NULL, "40", "its lines add up");
	fr = frame_of(svg, "a&lt;b");
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k2", "a user frame, XML escaped");
	fr = frame_of(svg, "x\\\\y");
	CHECK(fr != NULL, "an escaped backslash stays one escape");
	fr = frame_of(svg, "schedule");
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k3", "\"_[k]\": kernel, the mark gone");
	CHECK_STR(fr ? attr(fr, false, "data-v") : NULL, "30", "the line's value");
	CHECK_STR(fr ? attr(fr, false, "data-d") : NULL, "6", "at its depth");
	CHECK(strstr(svg, "_[k]") == NULL, "no mark left");
	fr = frame_of(svg, "[unknown]");
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k6", "\"[unknown]\": unresolved");
	CHECK(strstr(svg, "<g class=\"f k6\" data-s=\"45\" data-v=\"5\" data-d=\"2\"><title>[unknown] (")
	      != NULL, "\"[unknown]_[k]\": unresolved, the mark gone");
	fr = frame_of(svg, "[no stack]");
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k1", "a line of one frame: the thread");
	CHECK(strstr(svg, "Total 50 us;") != NULL, "the total is the lines' sum");
	free(svg);
	flamesvg_free(g);
}

static void test_window(void)
{
	char buf[96];

	flamesvg_window(buf, sizeof(buf), 1000000000ull, 3500000000ull,
			1796360400ll * 1000000000ll - 1000000000ll);
	CHECK_STR(buf, "2.5 s from 2026-12-04 05:00:00 UTC", "the window, dated by the offset");
}

static void test_empty(void)
{
	struct flamesvg *g = flamesvg_new();
	struct flamesvg_stats st;
	char *svg = write_svg(g, 0, &st, NULL);

	CHECK(strstr(svg, "Total 0 us;") != NULL, "nothing recorded: a total of 0");
	CHECK_U64(st.drawn, 1, "the root alone");
	free(svg);
	flamesvg_free(g);
}

/* A differential graph (flamesvg_add_diff): widths this run's, each
 * frame coloured by its change against the largest |change| drawn */
static void test_diff(void)
{
	struct flamesvg *g = flamesvg_new();
	struct flamesvg_stats st;
	char *svg, fill[48];
	const char *fr;

	/* after: 300 + 100 + 50 + 20 = 470; before: 250 + 50 + 200 + 30 + 10
	 * = 540.  Changes: grow_here +300 (the largest), shrink_here -150,
	 * main -80, the root -70, same_here 0, the hostile thread +10 */
	flamesvg_add_diff(g, "app;main;grow_here", 0, 300);
	flamesvg_add_diff(g, "app;main;shrink_here", 250, 100);
	flamesvg_add_diff(g, "app;main;same_here", 50, 50);
	flamesvg_add_diff(g, "app;main;gone_here", 200, 0);
	flamesvg_add_diff(g, "app;main;gone2;schedule_[k]", 30, 0);
	flamesvg_add_diff(g, "ev\\x1b[31m<il>;f&\"'", 10, 20);
	flamesvg_against(g, "b<e>fore\x1b.folded");
	svg = write_svg(g, 0, &st, NULL);
	CHECK(strstr(svg, ", against b&lt;e&gt;fore\\x1b.folded</text>") != NULL,
	      "the title says against which file, escaped");
	/* each frame: its class, fill and value before */
	static const struct {
		const char *name, *cls, *fill, *before, *why;
	} want[] = {
		{ "grow_here", "f k2 grew", "hsl(0,80%,50%)", "0",
		  "grew, the largest change: red, lightness 50" },
		{ "shrink_here", "f k2 shrank", "hsl(220,80%,70%)", "250",
		  "shrank by half the largest change: blue, lightness 90 - 20" },
		{ "main", "f k2 shrank", "hsl(220,80%,79%)", "530",
		  "a parent: its own change, -80 of 300 (90 - round(10.67)), its stacks' before" },
		{ "same_here", "f k2 same", "hsl(0,0%,90%)", "50", "unchanged: neutral grey" },
		{ "all", "f k0 shrank", "hsl(220,80%,81%)", "540",
		  "the root: -70 of 300 (90 - round(9.33)), the earlier run's total" },
		{ "ev\\x1b[31m&lt;il&gt;", "f k1 grew", "hsl(0,80%,89%)", "10",
		  "a hostile thread, escaped: +10 of 300 (90 - round(1.33))" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		fr = frame_of(svg, want[i].name);
		CHECK(fr && !strcmp(attr(fr, false, "class"), want[i].cls) &&
		      !strcmp(attr(fr, true, "fill"), want[i].fill) &&
		      !strcmp(attr(fr, false, "data-b"), want[i].before), "%s: %s", want[i].name,
		      want[i].why);
	}
	CHECK(strstr(svg, "<title>grow_here (300 us, 63.83%; before 0, change +300 us)</title>") != NULL,
	      "hover: now, share, before and change");
	CHECK(strstr(svg, "<title>shrink_here (100 us, 21.28%; before 250, change -150 us)</title>") != NULL,
	      "hover: the change negative");
	fr = frame_of(svg, "all");
	CHECK_STR(fr ? attr(fr, false, "data-v") : NULL, "470", "the root: this run's total");
	CHECK(strstr(svg, "<title>f&amp;&quot;&apos; (20 us") != NULL, "a hostile frame, XML escaped");
	CHECK(frame_of(svg, "gone_here") == NULL && frame_of(svg, "gone2") == NULL &&
	      frame_of(svg, "schedule") == NULL, "frames with nothing now are not drawn");
	CHECK_U64(st.gone, 2, "two stacks gone");
	CHECK_U64(st.gone_before, 230, "with 230 us before");
	CHECK_U64(st.narrow, 0, "gone frames are not counted as narrow");
	CHECK_U64(st.max_change, 300, "the scale: the largest |change|");
	CHECK(strstr(svg, "2 stacks gone (only before, no width now): 230 us before.") != NULL,
	      "the stacks gone are said in the file");
	CHECK(strstr(svg, "data-gone=\"2\" data-gone-before=\"230\"") != NULL, "and as attributes");
	CHECK(strstr(svg, "<g id=\"diff-legend\" data-max=\"300\">") != NULL, "the legend's scale");
	CHECK(strstr(svg, "fill=\"hsl(220,80%,50%)\" data-c=\"-300\"><title>-300 us</title>") != NULL &&
	      strstr(svg, "fill=\"hsl(0,0%,90%)\" data-c=\"0\">") != NULL &&
	      strstr(svg, "fill=\"hsl(0,80%,58%)\" data-c=\"240\"><title>+240 us</title>") != NULL,
	      "the ramp: its swatches, each with its value in the unit");
	CHECK(strstr(svg, ">shrank (blue) -300 us</text>") != NULL &&
	      strstr(svg, ">+300 us grew (red); grey: unchanged</text>") != NULL,
	      "the ramp's ends labelled, what red and blue mean");
	CHECK(strstr(svg, ">user</text>") == NULL, "no legend of kinds: the colour is the change");
	free(svg);
	flamesvg_free(g);

	/* kernel marks as folded output has them: "k_[k]" is not "k" */
	g = flamesvg_new();
	flamesvg_add_diff(g, "app;k_[k]", 40, 40);
	flamesvg_add_diff(g, "app;k", 0, 10);
	svg = write_svg(g, 0, NULL, NULL);
	CHECK(strstr(svg, "<g class=\"f k3 same\" data-s=\"10\" data-v=\"40\" data-d=\"2\" data-b=\"40\">") != NULL,
	      "a kernel frame matches the earlier run's kernel frame of its name");
	CHECK(strstr(svg, "<g class=\"f k2 grew\" data-s=\"0\" data-v=\"10\" data-d=\"2\" data-b=\"0\">") != NULL,
	      "not the user frame of that name");
	free(svg);
	flamesvg_free(g);

	/* narrow frames merged: the box's colour is their summed change */
	g = flamesvg_new();
	flamesvg_add_diff(g, "app;wide", 100000, 100000);
	for (int i = 0; i < 40; i++) {
		char stack[32];

		snprintf(stack, sizeof(stack), "app;n%02d", i);
		flamesvg_add_diff(g, stack, 10, 20);
	}
	svg = write_svg(g, 0, &st, NULL);
	fr = frame_of(svg, "[40 frames &lt; 1 px]");
	CHECK_STR(fr ? attr(fr, false, "class") : NULL, "f k7 grew", "a merged box: grew");
	CHECK_STR(fr ? attr(fr, false, "data-b") : NULL, "400", "its value before: the narrow ones'");
	CHECK_STR(fr ? attr(fr, true, "fill") : NULL, "hsl(0,80%,50%)",
		  "+400, as large as the root's: red, lightness 50");
	free(svg);
	flamesvg_free(g);

	flamesvg_diff_fill(fill, sizeof(fill), -7, 0);
	CHECK_STR(fill, "hsl(0,0%,90%)", "no change anywhere: grey");
	flamesvg_diff_fill(fill, sizeof(fill), 1, 1000000);
	CHECK_STR(fill, "hsl(0,80%,90%)", "the least growth: the lightest red");
	flamesvg_diff_fill(fill, sizeof(fill), -3, 4);
	CHECK_STR(fill, "hsl(220,80%,60%)", "-3 of 4: lightness 90 - 30");
	flamesvg_diff_fill(fill, sizeof(fill), INT64_MAX / 2, INT64_MAX);
	CHECK_STR(fill, "hsl(0,80%,70%)", "values near 2^63: the same rule, no overflow");

	/* a file's values as large as 64 bits: the change held to INT64_MAX */
	g = flamesvg_new();
	flamesvg_add_diff(g, "app;big", UINT64_MAX - 1, 1);
	svg = write_svg(g, 0, &st, NULL);
	CHECK(strstr(svg, "<title>big (1 us, 100.00%; before 18446744073709551614, change "
			  "-9223372036854775807 us)</title><rect") != NULL &&
	      strstr(svg, "fill=\"hsl(220,80%,50%)\"/><text x=\"13.00\" y=\"-36\">big") != NULL,
	      "a change past 2^63: said as the largest, shrunk, full blue");
	free(svg);
	flamesvg_free(g);
}

int main(void)
{
	test_widths();
	test_escaping();
	test_narrow();
	test_cap();
	test_kinds();
	test_empty();
	test_folded();
	test_window();
	test_diff();
	return unit_exit();
}
