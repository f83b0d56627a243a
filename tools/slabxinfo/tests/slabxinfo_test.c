// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of slabxinfo: its parsing and figures, called directly (this
 * file includes slabxinfo.c, with its main() renamed slabxinfo_main()),
 * and the tool itself run on the fixtures.
 *
 * Usage: slabxinfo-test TOOL FIXTURES
 *   TOOL      the slabxinfo binary to run
 *   FIXTURES  tests/fixtures: copies of real debugfs trees
 *     um/slabx     a UML guest (1 CPU, 1 node): the demo cache and five
 *                  caches of other kinds (big objects, no sheaves, pool
 *                  mode, slabx_free_rcu(), SLABX_DEBUG)
 *     numa/slabx   the same workload in the debug QEMU guest (8 CPUs, 2
 *                  nodes, KASAN: strides with redzones)
 *     broken/slabx malformed lines among good ones, a directory that is
 *                  not a cache, one whose stats vanished, an empty stats,
 *                  and a cache of a module without cpu_stats
 *
 * Prints "ok N NAME" or "not ok N NAME" per case, then
 * "slabxinfo: N passed, M failed"; exits 1 if any failed.
 */
/* The tool, whose main() is not this program's. */
#define main slabxinfo_main
#include "../slabxinfo.c"
#undef main

#include <sys/wait.h>

static const char *tool;
static const char *fixtures;
static bool case_ok;
static int passed, failed;

#define CHECK(cond) check(!!(cond), #cond, __LINE__)

static void check(bool ok, const char *what, int line)
{
	if (ok)
		return;
	case_ok = false;
	printf("# line %d: failed: %s\n", line, what);
}

static void run_case(const char *name, void (*fn)(void))
{
	case_ok = true;
	fn();
	if (case_ok) {
		passed++;
		printf("ok %d %s\n", passed + failed, name);
	} else {
		failed++;
		printf("not ok %d %s\n", passed + failed, name);
	}
	fflush(stdout);
}

/* ---- helpers ------------------------------------------------------------- */

static char *fixture(const char *tree)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/slabx", fixtures, tree);
	return path;
}

/* Run a shell command; return its output (to be freed), *status its exit. */
static __printf(2, 3) char *run_sh(int *status, const char *fmt, ...)
{
	char *cmd, *out = NULL;
	size_t len = 0;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		die_oom();
	va_end(ap);
	p = popen(cmd, "r");
	free(cmd);
	if (!p) {
		*status = -1;
		return xstrdup("");
	}
	for (;;) {
		size_t n;

		out = xrealloc(out, len + 4097);
		n = fread(out + len, 1, 4096, p);
		if (!n)
			break;
		len += n;
	}
	out[len] = '\0';
	st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return out;
}

/* Run "TOOL ARGS", with stderr in the output when @err is set. */
static char *run_tool(const char *args, bool err, int *status)
{
	return run_sh(status, "env -u %s %s %s%s", ROOT_ENV, tool, args,
		      err ? " 2>&1" : " 2>/dev/null");
}

/* The line of @out whose first word is @word, copied to @buf; or NULL. */
static char *line_of(const char *out, const char *word, char *buf, size_t len)
{
	size_t n = strlen(word);
	const char *p = out;

	while (p && *p) {
		const char *s = p + strspn(p, " ");

		if (!strncmp(s, word, n) && (s[n] == ' ' || s[n] == '\n')) {
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return buf;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Field @n (from 0) of @line, split at spaces; "" past the end. */
static const char *field(const char *line, int n, char *buf, size_t len)
{
	int i;

	for (i = 0; line; i++) {
		line += strspn(line, " ");
		if (!*line)
			break;
		if (i == n) {
			snprintf(buf, len, "%.*s", (int)strcspn(line, " "),
				 line);
			return buf;
		}
		line += strcspn(line, " ");
	}
	snprintf(buf, len, "%s", "");
	return buf;
}

static unsigned long long field_num(const char *line, int n)
{
	char buf[64];

	return strtoull(field(line, n, buf, sizeof(buf)), NULL, 10);
}

static bool near(double a, double b)
{
	return fabs(a - b) < 0.000001;
}

static bool contains(const char *out, const char *s)
{
	return strstr(out, s);
}

static int load(const char *tree, const char *name, struct cache *c)
{
	return load_cache(fixture(tree), name, c);
}

static unsigned long long rec(const struct cache *c, const char *r,
			      const char *key)
{
	const struct record *p = rec_find(c, r);

	return p ? rec_val(p, key) : ~0ULL;
}

/* A copy of fixture @tree in a new temporary directory; its slabx root. */
static char *copy_tree(const char *tree, char *root, size_t len)
{
	char tmpl[] = "/tmp/slabxinfo-test.XXXXXX", cmd[3 * PATH_MAX];
	const char *dir = mkdtemp(tmpl);

	if (!dir)
		return NULL;
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s/'", fixture(tree), dir);
	if (system(cmd))
		return NULL;
	snprintf(root, len, "%s/slabx", dir);
	return root;
}

/* Remove what copy_tree() made: the directory above @root. */
static void remove_tree(const char *root)
{
	char dir[PATH_MAX], cmd[2 * PATH_MAX];

	dir_of(root, dir, sizeof(dir));
	if (strncmp(dir, "/tmp/slabxinfo-test.", 20))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* ---- a JSON checker: RFC 8259 syntax, enough to trust the output -------- */

static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	return p + strspn(p, " \t\r\n");
}

static const char *json_string_end(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			if (strspn(p + 1, "0123456789abcdefABCDEF") < 4)
				return NULL;
			p += 4;
		} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
			return NULL;
		}
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_number_end(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return NULL;
	if (*p == '.') {
		if (!strspn(++p, "0123456789"))
			return NULL;
		p += strspn(p, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!strspn(p, "0123456789"))
			return NULL;
		p += strspn(p, "0123456789");
	}
	return p;
}

/* The members of an object or array after its opening bracket. */
static const char *json_members(const char *p, char close, bool keys)
{
	p = json_ws(p);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			p = json_string_end(json_ws(p));
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	p = json_ws(p);
	switch (*p) {
	case '{':
		return json_members(p + 1, '}', true);
	case '[':
		return json_members(p + 1, ']', false);
	case '"':
		return json_string_end(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return json_number_end(p);
	}
}

/* Whether @s is one JSON document per line, @lines of them. */
static bool json_lines_valid(const char *s, int lines)
{
	int n = 0;

	while (*s) {
		const char *end = json_value(s);

		if (!end || *end != '\n')
			return false;
		s = end + 1;
		n++;
	}
	return n == lines;
}

/*
 * The number after "KEY": in the object of cache @name in @json, or -1:
 * the cache object starts at "name":"NAME" and ends at the next "name".
 */
static double json_field(const char *json, const char *name, const char *key)
{
	char pat[256];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "{\"name\":\"%s\",", name);
	p = strstr(json, pat);
	if (!p)
		return -1;
	end = strstr(p + 1, "{\"name\":");
	snprintf(pat, sizeof(pat), ",\"%s\":", key);
	p = strstr(p, pat);
	if (!p || (end && p > end))
		return -1;
	p += strlen(pat);
	if (!strncmp(p, "null", 4))
		return NAN;
	return strtod(p, NULL);
}

/* ---- parsing ------------------------------------------------------------- */

static void test_parse_um(void)
{
	struct cache c;

	CHECK(!load("um", "demo", &c));
	CHECK(!strcmp(c.name, "demo"));
	CHECK(val(&c, "object_size") == 128);
	CHECK(val(&c, "objects_inuse") == 1744);
	CHECK(val(&c, "objects_total") == 2015);
	CHECK(val(&c, "slabs") == 65);
	CHECK(val(&c, "sheaf_capacity") == 64);
	CHECK(val(&c, "alloc") == 2000);
	CHECK(val(&c, "nolock_trylock_fail") == 0);
	CHECK(kv_find(&c.scalars, "nolock_trylock_fail"));
	CHECK(!kv_find(&c.scalars, "name"));
	CHECK(rec(&c, "node0", "slabs") == 65);
	CHECK(rec(&c, "node0", "inuse") == 1744);
	CHECK(rec(&c, "barn0", "full") == 10);
	CHECK(!rec_find(&c, "node1"));
	CHECK(c.nr_cpu == 1 && c.cpu[0].cpu == 0);
	CHECK(c.nr_cpu_key == 39);
	CHECK(c.malformed == 0);
	cache_free(&c);
}

/* Every counter of cpu_stats sums to the one in stats (a real capture). */
static void test_cpu_sums(void)
{
	static const char * const names[] = {
		"demo", "inode_big", "req_nosheaves", "evt_pool", "rcu_nodes",
		"dbg_objs",
	};
	size_t i, k, cpu;
	struct cache c;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		CHECK(!load("numa", names[i], &c));
		CHECK(c.nr_cpu == 8);
		CHECK(c.nr_cpu_key > 30);
		for (k = 0; k < c.nr_cpu_key; k++) {
			unsigned long long sum = 0;

			for (cpu = 0; cpu < c.nr_cpu; cpu++)
				sum += c.cpu[cpu].val[k];
			CHECK(kv_find(&c.scalars, c.cpu_key[k]));
			CHECK(sum == val(&c, c.cpu_key[k]));
		}
		CHECK(c.malformed == 0);
		cache_free(&c);
	}
}

static void test_parse_numa(void)
{
	struct cache c;

	CHECK(!load("numa", "demo", &c));
	CHECK(val(&c, "stride") == 144);
	CHECK(rec(&c, "node0", "slabs") == 75);
	CHECK(rec(&c, "node1", "slabs") == 0);
	CHECK(rec(&c, "barn1", "empty") == 0);
	CHECK(c.cpu[7].cpu == 7);
	cache_free(&c);
	CHECK(!load("numa", "evt_pool", &c));
	CHECK(rec(&c, "pool", "objects") == 256);
	CHECK(rec(&c, "pool", "ring_bytes") == 6784);
	CHECK(rec(&c, "pool", "outstanding") == 50);
	cache_free(&c);
}

static void test_snapshot(void)
{
	struct snapshot s;

	CHECK(!snapshot_take(fixture("numa"), NULL, &s));
	CHECK(s.nr == 6);
	CHECK(s.pages_held == 355);
	/* Sorted by name; the files (summary, objpools...) are no caches. */
	CHECK(s.nr == 6 && !strcmp(s.cache[0].name, "dbg_objs") &&
	      !strcmp(s.cache[5].name, "req_nosheaves"));
	CHECK(snapshot_find(&s, "demo") && !snapshot_find(&s, "summary"));
	snapshot_free(&s);
	CHECK(!snapshot_take(fixture("numa"), "demo", &s));
	CHECK(s.nr == 1 && !strcmp(s.cache[0].name, "demo"));
	snapshot_free(&s);
	CHECK(snapshot_take("/nonexistent/slabx", NULL, &s) == -ENOENT);
}

/* Send stderr (the tool's warnings) to @path, or back where it was. */
static void redirect_stderr(const char *path)
{
	static int saved = -1;
	int fd;

	fflush(stderr);
	if (path && saved < 0) {
		saved = dup(2);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
	} else if (!path && saved >= 0) {
		dup2(saved, 2);
		close(saved);
		saved = -1;
	}
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

static void test_malformed(void)
{
	struct snapshot s;
	const struct cache *c;

	redirect_stderr("/dev/null");
	CHECK(!snapshot_take(fixture("broken"), NULL, &s));
	redirect_stderr(NULL);
	/* notcache, gone (no stats) and empty (an empty stats) are left out. */
	CHECK(s.nr == 3);
	CHECK(snapshot_find(&s, "good") && snapshot_find(&s, "oldmodule"));
	CHECK(!snapshot_find(&s, "notcache") && !snapshot_find(&s, "gone") &&
	      !snapshot_find(&s, "empty"));
	c = snapshot_find(&s, "badlines");
	CHECK(c);
	if (!c)
		goto out;
	/* 9 bad lines of stats, 4 of cpu_stats. */
	CHECK(c->malformed == 13);
	/* The first of a duplicate key counts. */
	CHECK(val(c, "objects_inuse") == 250);
	/* Good lines after bad ones of the same key. */
	CHECK(val(c, "alloc") == 500 && val(c, "free") == 250);
	CHECK(val(c, "free_fastpath") == 0 && val(c, "slab_new") == 27);
	CHECK(val(c, "alloc_fastpath") == 0);
	/* The last line has no newline. */
	CHECK(!kv_find(&c->scalars, "widget") && rec_find(c, "widget"));
	/* New keys are taken: a counter, a record with a negative field. */
	CHECK(val(c, "future_counter") == 7 && is_counter("future_counter"));
	CHECK(rec_find(c, "widget") &&
	      kv_find(&rec_find(c, "widget")->fields, "count")->neg);
	CHECK(!rec_find(c, "node1") && !rec_find(c, "barn1"));
	CHECK(c->nr_cpu == 1 && c->cpu[0].val[0] == 500);
	/* A module before cpu_stats and barn_max_*. */
	c = snapshot_find(&s, "oldmodule");
	CHECK(c && c->nr_cpu == 0 && barn_totals(c).max_full == 0);
out:
	snapshot_free(&s);
}

static void test_parse_num(void)
{
	unsigned long long v;
	bool neg;

	CHECK(!parse_num("0", &v, NULL) && v == 0);
	CHECK(!parse_num("18446744073709551615", &v, NULL) && v == ~0ULL);
	CHECK(parse_num("18446744073709551616", &v, NULL));
	CHECK(parse_num("-1", &v, NULL));
	CHECK(!parse_num("-3", &v, &neg) && v == 3 && neg);
	CHECK(!parse_num("-0", &v, &neg) && v == 0 && !neg);
	CHECK(parse_num("", &v, NULL) && parse_num(" 1", &v, NULL));
	CHECK(parse_num("1 ", &v, NULL) && parse_num("+1", &v, NULL));
	CHECK(parse_num("0x10", &v, NULL) && parse_num("--1", &v, &neg));
}

/* ---- caches that come and go --------------------------------------------- */

static const char *vanish_name;

/* Remove the cache just listed, as slabx_cache_destroy() would. */
static void vanish_hook(const char *root, const char *name)
{
	char cmd[2 * PATH_MAX];

	if (strcmp(name, vanish_name))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", root, name);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

static void test_vanish(void)
{
	char root[PATH_MAX], err[PATH_MAX + 8];
	struct snapshot s;

	CHECK(copy_tree("numa", root, sizeof(root)));
	snprintf(err, sizeof(err), "%s.err", root);
	vanish_name = "demo";
	listed_hook = vanish_hook;
	redirect_stderr(err);
	CHECK(!snapshot_take(root, NULL, &s));
	redirect_stderr(NULL);
	listed_hook = NULL;
	/* Left out without a word: it is no error. */
	CHECK(file_size(err) == 0);
	CHECK(s.nr == 5 && !snapshot_find(&s, "demo"));
	CHECK(snapshot_find(&s, "dbg_objs") && snapshot_find(&s, "rcu_nodes"));
	snapshot_free(&s);
	remove_tree(root);
}

/* slabx unloaded while we read: the whole tree goes after readdir(). */
static void unload_hook(const char *root, const char *name)
{
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# %s failed\n", cmd);
}

static void test_unload_midway(void)
{
	char root[PATH_MAX], args[PATH_MAX + 16], *out;
	struct snapshot s;
	int st;

	CHECK(copy_tree("numa", root, sizeof(root)));
	snprintf(args, sizeof(args), "%s.err", root);
	listed_hook = unload_hook;
	redirect_stderr(args);
	CHECK(!snapshot_take(root, NULL, &s));
	redirect_stderr(NULL);
	listed_hook = NULL;
	CHECK(file_size(args) == 0);
	CHECK(s.nr == 0 && s.pages_held == -1);
	snapshot_free(&s);
	/* debugfs stays, with other files: /sys/kernel/debug/kunit... */
	snprintf(args, sizeof(args), "%s.kunit", root);
	CHECK(!mkdir(args, 0755));
	snprintf(args, sizeof(args), "--root '%s'", root);
	out = run_tool(args, true, &st);
	CHECK(st == 1 && contains(out, "slabx is not loaded"));
	free(out);
	remove_tree(root);
}

/* ---- figures ------------------------------------------------------------- */

static void test_figures(void)
{
	unsigned long ps = page_size();
	struct barn_totals b;
	struct cache c;

	CHECK(!load("numa", "demo", &c));
	CHECK(cache_memory(&c) == 75 * ps);
	CHECK(cache_waste(&c) == 75 * ps - 1664 * 128);
	CHECK(near(hit_rate(&c), 988 / 2000.0));
	b = barn_totals(&c);
	CHECK(b.full == 10 && b.empty == 0 && b.max_full == 20);
	cache_free(&c);
	CHECK(!load("numa", "evt_pool", &c));
	CHECK(cache_memory(&c) == 256 * 112 + 6784);
	CHECK(cache_waste(&c) == 256 * 112 + 6784 - 50 * 96);
	CHECK(isnan(hit_rate(&c)));
	cache_free(&c);
	CHECK(!load("um", "inode_big", &c));
	CHECK(cache_memory(&c) == 240 * ps);
	cache_free(&c);
	CHECK(!load("um", "req_nosheaves", &c));
	CHECK(isnan(hit_rate(&c)));
	CHECK(barn_totals(&c).max_full == 10);
	cache_free(&c);
}

static void test_rates(void)
{
	struct cache a, b;
	struct row r;

	CHECK(!load("um", "demo", &a));
	CHECK(!load("um", "demo", &b));
	/* 1000 more allocations, 900 from the sheaves, in 2 s. */
	b.scalars.v[kv_find(&b.scalars, "alloc") - b.scalars.v].val += 1000;
	b.scalars.v[kv_find(&b.scalars, "alloc_fastpath") -
		    b.scalars.v].val += 900;
	r.c = &b;
	r.prev = &a;
	r.dt = 2;
	CHECK(get_alloc_rate(&r) == 500);
	CHECK(get_free_rate(&r) == 0);
	CHECK(near(get_hit_since(&r), 0.9));
	/* No earlier sample, or a new cache of the same name: no rate. */
	r.prev = NULL;
	CHECK(isnan(get_alloc_rate(&r)) && isnan(get_hit_since(&r)));
	r.c = &a;
	r.prev = &b;
	CHECK(isnan(get_alloc_rate(&r)));
	cache_free(&a);
	cache_free(&b);
}

static void test_format(void)
{
	char buf[32];

	fmt_bytes(buf, sizeof(buf), 100);
	CHECK(!strcmp(buf, "100"));
	fmt_bytes(buf, sizeof(buf), 4096);
	CHECK(!strcmp(buf, "4.0K"));
	fmt_bytes(buf, sizeof(buf), 75 * 4096);
	CHECK(!strcmp(buf, "300K"));
	fmt_bytes(buf, sizeof(buf), 1.5 * 1024 * 1024);
	CHECK(!strcmp(buf, "1.5M"));
	fmt_rate(buf, sizeof(buf), NAN);
	CHECK(!strcmp(buf, "-"));
	fmt_rate(buf, sizeof(buf), 12.34);
	CHECK(!strcmp(buf, "12.3"));
	fmt_rate(buf, sizeof(buf), 2500000);
	CHECK(!strcmp(buf, "2.5M"));
	fmt_pct(buf, sizeof(buf), 0.4945);
	CHECK(!strcmp(buf, "49.5") || !strcmp(buf, "49.4"));
}

/* ---- the tool ------------------------------------------------------------ */

/* The table's row of every cache agrees with its stats file. */
static void check_table_rows(const char *tree, const char *out)
{
	struct snapshot s;
	char line[512];
	size_t i;

	CHECK(!snapshot_take(fixture(tree), NULL, &s));
	for (i = 0; i < s.nr; i++) {
		const struct cache *c = &s.cache[i];

		CHECK(line_of(out, c->name, line, sizeof(line)));
		CHECK(field_num(line, 1) == val(c, "objects_inuse"));
		CHECK(field_num(line, 2) == val(c, "objects_total"));
		CHECK(field_num(line, 4) == val(c, "object_size"));
		CHECK(field_num(line, 6) == val(c, "slabs"));
		CHECK(field_num(line, 7) == val(c, "order"));
		CHECK(field_num(line, 8) == val(c, "sheaf_capacity"));
	}
	snapshot_free(&s);
}

static void test_table(void)
{
	char args[PATH_MAX + 16], line[512], buf[64];
	char *out;
	int st;

	snprintf(args, sizeof(args), "--root %s", fixture("numa"));
	out = run_tool(args, true, &st);
	CHECK(st == 0);
	CHECK(!strncmp(out, "NAME ", 5));
	CHECK(line_of(out, "NAME", line, sizeof(line)) &&
	      !strcmp(field(line, 5, buf, sizeof(buf)), "MEMORY") &&
	      !strcmp(field(line, 11, buf, sizeof(buf)), "WASTE"));
	check_table_rows("numa", out);
	/* Largest memory first: inode_big 960K, demo 300K, ... */
	CHECK(strstr(out, "\ninode_big ") < strstr(out, "\ndemo ") &&
	      strstr(out, "\ndemo ") < strstr(out, "\nreq_nosheaves ") &&
	      strstr(out, "\nevt_pool ") < strstr(out, "\ndbg_objs "));
	CHECK(line_of(out, "demo", line, sizeof(line)) &&
	      !strcmp(field(line, 5, buf, sizeof(buf)), "300K") &&
	      !strcmp(field(line, 9, buf, sizeof(buf)), "49.4") &&
	      !strcmp(field(line, 10, buf, sizeof(buf)), "10/20"));
	CHECK(line_of(out, "req_nosheaves", line, sizeof(line)) &&
	      !strcmp(field(line, 9, buf, sizeof(buf)), "-") &&
	      !strcmp(field(line, 10, buf, sizeof(buf)), "-"));
	CHECK(contains(out, "\n6 caches; slabx holds 355 pages (1.4M)\n"));
	free(out);
	snprintf(args, sizeof(args), "--root %s", fixture("um"));
	out = run_tool(args, true, &st);
	CHECK(st == 0);
	check_table_rows("um", out);
	free(out);
}

/* The rows of a table in the order printed, as the values of column @col. */
static void table_column(const char *out, int col, char vals[][32], int *nr)
{
	const char *p = strchr(out, '\n');
	char line[512];

	*nr = 0;
	while (p && p[1] && *nr < 16) {
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + 1, "\n"),
			 p + 1);
		p = strchr(p + 1, '\n');
		if (strstr(line, " caches; "))
			break;
		field(line, col, vals[(*nr)++], 32);
	}
}

/* Larger first, "-" last, names A-Z. */
static bool sorted(char vals[][32], int nr, bool name)
{
	int i;

	for (i = 1; i < nr; i++) {
		if (name) {
			if (strcmp(vals[i - 1], vals[i]) > 0)
				return false;
		} else if (!strcmp(vals[i - 1], "-")) {
			if (strcmp(vals[i], "-"))
				return false;
		} else if (strcmp(vals[i], "-") &&
			   strtod(vals[i - 1], NULL) < strtod(vals[i], NULL)) {
			return false;
		}
	}
	return true;
}

static void test_sort(void)
{
	char args[PATH_MAX + 64], vals[16][32];
	size_t i;
	int st, nr;

	for (i = 0; i < ARRAY_SIZE(table_cols); i++) {
		const struct column *col = &table_cols[i];
		char *out;

		/* Byte figures and the barn are not plain numbers. */
		if (col->kind == COL_BYTES || col->kind == COL_BARN)
			continue;
		snprintf(args, sizeof(args), "--root %s -s %s", fixture("numa"),
			 col->key);
		out = run_tool(args, true, &st);
		CHECK(st == 0);
		table_column(out, i, vals, &nr);
		CHECK(nr == 6);
		if (!sorted(vals, nr, col->kind == COL_NAME))
			printf("# -s %s: not sorted\n", col->key);
		CHECK(sorted(vals, nr, col->kind == COL_NAME));
		free(out);
	}
	/* By waste (bytes): inode_big 233K, demo 92K, ..., dbg_objs 6.2K. */
	snprintf(args, sizeof(args), "--root %s -s WASTE", fixture("numa"));
	{
		char *out = run_tool(args, true, &st);

		table_column(out, 0, vals, &nr);
		CHECK(st == 0 && nr == 6 && !strcmp(vals[0], "inode_big") &&
		      !strcmp(vals[1], "demo") && !strcmp(vals[5], "dbg_objs"));
		free(out);
	}
}

static void test_json(void)
{
	char args[PATH_MAX + 32];
	struct snapshot s;
	char *out;
	size_t i;
	int st;

	snprintf(args, sizeof(args), "--root %s -j", fixture("numa"));
	out = run_tool(args, false, &st);
	CHECK(st == 0);
	CHECK(json_lines_valid(out, 1));
	CHECK(contains(out, "\"pages_held\":355,"));
	CHECK(!snapshot_take(fixture("numa"), NULL, &s));
	for (i = 0; i < s.nr; i++) {
		const struct cache *c = &s.cache[i];
		const char *n = c->name;

		CHECK(json_field(out, n, "objects_inuse") ==
		      val(c, "objects_inuse"));
		CHECK(json_field(out, n, "objects_total") ==
		      val(c, "objects_total"));
		CHECK(json_field(out, n, "slabs") == val(c, "slabs"));
		CHECK(json_field(out, n, "alloc") == val(c, "alloc"));
		CHECK(json_field(out, n, "memory") == cache_memory(c));
		CHECK(json_field(out, n, "waste") == cache_waste(c));
	}
	snapshot_free(&s);
	CHECK(near(json_field(out, "demo", "hit_rate"), 0.494));
	CHECK(isnan(json_field(out, "evt_pool", "hit_rate")));
	CHECK(json_field(out, "demo", "barn_limit") == 20);
	CHECK(contains(out, "\"nodes\":[{\"node\":0,\"slabs\":75,"));
	CHECK(contains(out, "\"pool\":{\"objects\":256,\"size\":112,"));
	/* No per-CPU figures in the table's JSON. */
	CHECK(!contains(out, "\"cpus\""));
	free(out);
	snprintf(args, sizeof(args), "--root %s -j demo", fixture("numa"));
	out = run_tool(args, false, &st);
	CHECK(st == 0 && json_lines_valid(out, 1));
	CHECK(contains(out, "\"cpus\":[{\"cpu\":0,\"alloc\":2000,"));
	CHECK(contains(out, "{\"cpu\":7,\"alloc\":0,"));
	free(out);
	snprintf(args, sizeof(args), "--root %s -j", fixture("broken"));
	out = run_tool(args, false, &st);
	CHECK(st == 0 && json_lines_valid(out, 1));
	CHECK(json_field(out, "badlines", "malformed_lines") == 13);
	CHECK(contains(out, "\"widget\":{\"size\":3,\"count\":-2}"));
	free(out);
}

/* Names may hold anything but '/': quotes, backslashes, spaces. */
static void test_json_names(void)
{
	char root[PATH_MAX], from[2 * PATH_MAX], to[2 * PATH_MAX];
	char args[PATH_MAX + 32], *out;
	int st;

	CHECK(copy_tree("um", root, sizeof(root)));
	snprintf(from, sizeof(from), "%s/demo", root);
	snprintf(to, sizeof(to), "%s/we\"ird\\ name\t1", root);
	CHECK(!rename(from, to));
	snprintf(args, sizeof(args), "--root %s -j", root);
	out = run_tool(args, false, &st);
	CHECK(st == 0 && json_lines_valid(out, 1));
	CHECK(contains(out, "{\"name\":\"we\\\"ird\\\\ name\\u00091\","));
	free(out);
	remove_tree(root);
}

static void test_cache_view(void)
{
	char args[PATH_MAX + 32], line[512];
	struct cache c;
	char *out;
	size_t i;
	int st;

	snprintf(args, sizeof(args), "--root %s demo", fixture("numa"));
	out = run_tool(args, true, &st);
	CHECK(st == 0);
	CHECK(!load("numa", "demo", &c));
	/* Every line of stats is there, with its value. */
	for (i = 0; i < c.scalars.nr; i++) {
		CHECK(line_of(out, c.scalars.v[i].key, line, sizeof(line)));
		CHECK(field_num(line, 1) == c.scalars.v[i].val);
	}
	/* The counters per CPU: only CPU 0 counted anything. */
	CHECK(line_of(out, "counter", line, sizeof(line)) &&
	      contains(line, " cpu0") && !contains(line, " cpu1"));
	CHECK(line_of(out, "alloc", line, sizeof(line)) &&
	      field_num(line, 1) == 2000 && field_num(line, 2) == 2000);
	CHECK(contains(out, "(7 CPUs with no events not shown)"));
	CHECK(contains(out, "\nnode "));
	CHECK(line_of(out, "1", line, sizeof(line)));
	CHECK(contains(out, "alloc hit 49.4%, free hit 100.0%"));
	CHECK(contains(out, "1664 in use of 2025 (82.2%), 128 bytes each"));
	cache_free(&c);
	free(out);

	snprintf(args, sizeof(args), "--root %s evt_pool", fixture("numa"));
	out = run_tool(args, true, &st);
	CHECK(st == 0 && contains(out, "\npool\n") &&
	      line_of(out, "ring_bytes", line, sizeof(line)) &&
	      field_num(line, 1) == 6784);
	free(out);

	snprintf(args, sizeof(args), "--root %s nosuch", fixture("numa"));
	out = run_tool(args, true, &st);
	CHECK(st == 1 && contains(out, "no cache nosuch in "));
	free(out);
	/* Only the cache asked for is read: no warnings of the others. */
	snprintf(args, sizeof(args), "--root %s good", fixture("broken"));
	out = run_tool(args, true, &st);
	CHECK(st == 0 && !contains(out, "malformed"));
	free(out);
}

static void test_watch(void)
{
	char args[PATH_MAX + 64], line[512];
	char *out, *p;
	int st, n = 0;

	snprintf(args, sizeof(args), "--root %s -w 0.1 -n 2", fixture("um"));
	out = run_tool(args, true, &st);
	CHECK(st == 0);
	for (p = out; (p = strstr(p, "rates per second over")); p++)
		n++;
	CHECK(n == 2);
	CHECK(line_of(out, "NAME", line, sizeof(line)) &&
	      contains(line, "ALLOC/s"));
	/* Nothing moves in a copy: every rate is 0. */
	CHECK(line_of(out, "demo", line, sizeof(line)) &&
	      !strcmp(field(line, 4, args, sizeof(args)), "0.0") &&
	      !strcmp(field(line, 6, args, sizeof(args)), "-"));
	free(out);

	snprintf(args, sizeof(args), "--root %s -w 0.1 -n 3 -j", fixture("um"));
	out = run_tool(args, false, &st);
	CHECK(st == 0 && json_lines_valid(out, 3));
	CHECK(contains(out, "\"rates\":{\"alloc\":0,"));
	free(out);

	snprintf(args, sizeof(args), "--root %s -w 0.1 -n 1 demo",
		 fixture("numa"));
	out = run_tool(args, true, &st);
	CHECK(st == 0);
	CHECK(line_of(out, "counter", line, sizeof(line)) &&
	      contains(line, " /s") && contains(line, "cpu0/s"));
	CHECK(line_of(out, "alloc", line, sizeof(line)) &&
	      field_num(line, 1) == 2000 &&
	      !strcmp(field(line, 2, args, sizeof(args)), "0.0"));
	free(out);
}

/* The live view over a cache that changes, then goes. */
static void test_watch_changes(void)
{
	char root[PATH_MAX], line[512], buf[64];
	char *out;
	int st;

	CHECK(copy_tree("um", root, sizeof(root)));
	/* A background writer doubles alloc a while after the first look. */
	out = run_sh(&st,
		     "(sleep 1; sed -i 's/^alloc 2000$/alloc 4000/' %s/demo/stats) & %s --root %s -w 2 -n 1 -s alloc; wait",
		     root, tool, root);
	CHECK(st == 0);
	/* 2000 in about 2 s, sorted first. */
	CHECK(line_of(out, "demo", line, sizeof(line)));
	CHECK(strtod(field(line, 4, buf, sizeof(buf)), NULL) > 500);
	CHECK(strstr(out, "\ndemo ") && strstr(out, "\ndbg_objs ") &&
	      strstr(out, "\ndemo ") < strstr(out, "\ndbg_objs "));
	free(out);
	/* The cache watched goes: a clear message, exit 1. */
	out = run_sh(&st,
		     "(sleep 0.3; rm -rf %s/demo) & %s --root %s -w 1 -n 2 demo 2>&1; echo rc=$?; wait",
		     root, tool, root);
	CHECK(contains(out, "no cache demo in "));
	CHECK(contains(out, "rc=1"));
	free(out);
	remove_tree(root);
}

static void test_no_debugfs(void)
{
	char tmpl[] = "/tmp/slabxinfo-test.XXXXXX", args[2 * PATH_MAX];
	char path[PATH_MAX];
	const char *dir = mkdtemp(tmpl);
	char *out;
	int st;

	CHECK(dir);
	if (!dir)
		return;
	/* No directory above: no debugfs (CONFIG_DEBUG_FS=n). */
	snprintf(args, sizeof(args), "--root %s/debug/slabx", dir);
	out = run_tool(args, true, &st);
	CHECK(st == 1 && contains(out, "debugfs is not mounted on ") &&
	      contains(out, "/debug (mount -t debugfs"));
	free(out);
	/* An empty one, as /sys/kernel/debug without debugfs mounted. */
	snprintf(path, sizeof(path), "%s/debug", dir);
	CHECK(!mkdir(path, 0755));
	out = run_tool(args, true, &st);
	CHECK(st == 1 && contains(out, "debugfs is not mounted on "));
	free(out);
	/* debugfs with something in it, but no slabx. */
	snprintf(path, sizeof(path), "%s/debug/kunit", dir);
	CHECK(!mkdir(path, 0755));
	out = run_tool(args, true, &st);
	CHECK(st == 1 && contains(out, "slabx is not loaded: there is no ") &&
	      contains(out, "/debug/slabx (insmod slabx.ko)"));
	free(out);
	/* Also from the environment, for each view. */
	out = run_sh(&st, "%s=%s/debug/slabx %s -w 1 -n 1 -j demo 2>&1",
		     ROOT_ENV, dir, tool);
	CHECK(st == 1 && contains(out, "slabx is not loaded"));
	free(out);
	/* A file where the tree should be. */
	snprintf(path, sizeof(path), "%s/debug/slabx", dir);
	CHECK(!write_file(path, "x\n"));
	snprintf(args, sizeof(args), "--root %s", path);
	out = run_tool(args, true, &st);
	CHECK(st == 1 && contains(out, "is not a directory"));
	free(out);
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	CHECK(!system(args));
}

static void test_usage(void)
{
	static const char * const bad[] = {
		"-n 3", "-w 0", "-w -1", "-w abc", "-w 1 -n 0", "-w 1 -n 1.5",
		"-s bogus", "-w 1 -s waste", "a b", "../demo", ".", "-x",
		"--root",
	};
	char args[PATH_MAX + 64];
	size_t i;
	char *out;
	int st;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(args, sizeof(args), "--root %s %s", fixture("um"),
			 bad[i]);
		out = run_tool(args, true, &st);
		if (st != 2)
			printf("# %s: exit %d\n", bad[i], st);
		CHECK(st == 2 && contains(out, "slabxinfo"));
		free(out);
	}
	out = run_tool("--help", true, &st);
	CHECK(st == 0 && contains(out, "Columns of the table:") &&
	      contains(out, "  waste    WASTE    MEMORY - INUSE x OBJSIZE"));
	free(out);
	/* The environment names the root, --root wins over it. */
	out = run_sh(&st, "%s=%s %s -s name 2>&1 && %s=/nonexistent %s --root %s -s name 2>&1",
		     ROOT_ENV, fixture("um"), tool, ROOT_ENV, tool,
		     fixture("um"));
	CHECK(st == 0);
	CHECK(strstr(out, "6 caches; slabx holds 343 pages") &&
	      strstr(strstr(out, "6 caches;") + 1, "6 caches;"));
	free(out);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s SLABXINFO FIXTURES\n", argv[0]);
		return 2;
	}
	tool = argv[1];
	fixtures = argv[2];
	run_case("parse a real stats file (UML)", test_parse_um);
	run_case("parse 2 nodes, 8 CPUs and a pool (QEMU)", test_parse_numa);
	run_case("cpu_stats sum to stats", test_cpu_sums);
	run_case("snapshot: caches only, sorted, pages_held", test_snapshot);
	run_case("malformed lines skipped, the rest kept", test_malformed);
	run_case("numbers: the whole string, no overflow", test_parse_num);
	run_case("a cache vanishing between readdir and open", test_vanish);
	run_case("slabx unloaded while reading", test_unload_midway);
	run_case("figures: memory, waste, hit rate, barns", test_figures);
	run_case("rates between two snapshots", test_rates);
	run_case("formatting of sizes, rates, percentages", test_format);
	run_case("table agrees with the stats files", test_table);
	run_case("-s sorts by every column", test_sort);
	run_case("-j is valid JSON with the figures", test_json);
	run_case("-j escapes odd cache names", test_json_names);
	run_case("CACHE shows every counter, per CPU and node", test_cache_view);
	run_case("-w -n: live views with rates", test_watch);
	run_case("-w follows changes and a cache going", test_watch_changes);
	run_case("no debugfs, no slabx: clear messages", test_no_debugfs);
	run_case("bad command lines exit 2", test_usage);
	printf("slabxinfo: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
