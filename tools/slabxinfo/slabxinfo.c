// SPDX-License-Identifier: GPL-2.0
/*
 * slabxinfo: slabinfo and slabtop for slabx caches.
 *
 * It reads slabx's debugfs files (see debugfs.c): the directories of
 * /sys/kernel/debug/slabx/ are the caches, each with a "stats" file of
 * "key value" lines and "nodeN k=v ..." / "barnN k=v ..." / "pool k=v ..."
 * records, and a "cpu_stats" file (a "# cpu NAME..." header, then one line
 * of values per CPU); "summary" has "pages_held N".
 *
 * Caches come and go while it reads: a cache whose files vanish between
 * readdir() and open() or read() is left out, not an error. A malformed
 * line is reported on stderr and skipped.
 *
 * Usage: see print_help() below, or slabxinfo --help.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ROOT	"/sys/kernel/debug/slabx"
#define ROOT_ENV	"SLABXINFO_ROOT"
#define EXIT_USAGE	2
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))

/* ---- data ---------------------------------------------------------------- */

/* A number of a stats file: counters are unsigned, a pool's outstanding not. */
struct kv {
	char *key;
	unsigned long long val;
	bool neg;		/* the value is -val */
};

struct kvlist {
	struct kv *v;
	size_t nr;
	size_t cap;
};

/* A line "KEY k=v k=v ...": nodeN, barnN, pool. */
struct record {
	char *key;
	struct kvlist fields;
};

/* A line of cpu_stats: one CPU's counters, in the order of the header. */
struct cpu_row {
	unsigned int cpu;
	unsigned long long *val;
};

struct cache {
	char *name;
	struct kvlist scalars;	/* "key value" lines, in file order */
	struct record *rec;
	size_t nr_rec;
	char **cpu_key;		/* the counters named in cpu_stats' header */
	size_t nr_cpu_key;
	struct cpu_row *cpu;
	size_t nr_cpu;
	unsigned int malformed;	/* lines skipped */
	char **warn;		/* what to say of them, once it is a cache */
};

struct snapshot {
	struct cache *cache;
	size_t nr;
	long long pages_held;	/* -1: no summary */
	double time;		/* CLOCK_MONOTONIC, in seconds */
};

struct opts {
	const char *root;
	const char *cache;	/* NULL: the table of all caches */
	const char *sort;	/* NULL: memory */
	double interval;	/* -w; 0: one look */
	unsigned long count;	/* -n; 0: until interrupted */
	bool json;
};

/*
 * Keys of stats that are state, not event counters: shown as they are,
 * never as rates. Every other "key value" line is a counter.
 */
static const char * const state_keys[] = {
	"object_size", "stride", "align", "order", "objs_per_slab",
	"sheaf_capacity", "objects_inuse", "objects_total", "slabs", "pages",
	"objects_barn", "sheaves_barn_empty", "objects_rcu_waiting",
	"barn_max_full", "barn_max_empty", "objects_reserve", "reserve_target",
	"reserve_bytes",
};

/* Keys a stats file must have to be one. */
static const char * const required_keys[] = {
	"object_size", "order", "objects_inuse", "objects_total", "slabs",
};

/* For the host tests: called between readdir() and reading a cache. */
static void (*listed_hook)(const char *root, const char *name);

/* ---- helpers ------------------------------------------------------------- */

static void die_oom(void)
{
	fputs("slabxinfo: out of memory\n", stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die_oom();
	return d;
}

static __printf(1, 2) void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("slabxinfo: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool in_list(const char *key, const char * const *list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(key, list[i]))
			return true;
	return false;
}

static bool is_counter(const char *key)
{
	return !in_list(key, state_keys, ARRAY_SIZE(state_keys));
}

/*
 * A decimal number, the whole of @s: unsigned, or negative where @neg is
 * not NULL. Return: 0, or -1 if @s is not one.
 */
static int parse_num(const char *s, unsigned long long *val, bool *neg)
{
	char *end;
	bool minus = *s == '-';

	if (minus) {
		if (!neg)
			return -1;
		s++;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	if (neg)
		*neg = minus && *val;
	return 0;
}

static const struct kv *kv_find(const struct kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

/* Return: 0, or -1 if @key is there already. */
static int kv_add(struct kvlist *l, const char *key, unsigned long long val,
		  bool neg)
{
	if (kv_find(l, key))
		return -1;
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->nr].key = xstrdup(key);
	l->v[l->nr].val = val;
	l->v[l->nr].neg = neg;
	l->nr++;
	return 0;
}

static void kv_free(struct kvlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->v[i].key);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void cache_free(struct cache *c)
{
	size_t i;

	free(c->name);
	kv_free(&c->scalars);
	for (i = 0; i < c->nr_rec; i++) {
		free(c->rec[i].key);
		kv_free(&c->rec[i].fields);
	}
	free(c->rec);
	for (i = 0; i < c->nr_cpu_key; i++)
		free(c->cpu_key[i]);
	free(c->cpu_key);
	for (i = 0; i < c->nr_cpu; i++)
		free(c->cpu[i].val);
	free(c->cpu);
	for (i = 0; i < c->malformed; i++)
		free(c->warn[i]);
	free(c->warn);
	memset(c, 0, sizeof(*c));
}

static void snapshot_free(struct snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		cache_free(&s->cache[i]);
	free(s->cache);
	memset(s, 0, sizeof(*s));
}

/* ---- reading ------------------------------------------------------------- */

/* Errors of a file that was removed under us: debugfs says EIO then. */
static bool vanished(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ENODEV || err == EIO;
}

/*
 * Read the whole of @path into a NUL-terminated buffer; a seq_file makes
 * its text at the first read, so the content is one snapshot.
 * Return: 0, or a negative errno.
 */
static int read_file(const char *path, char **bufp)
{
	size_t len = 0, cap = 16384;
	char *buf = xrealloc(NULL, cap);
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*bufp = buf;
	return 0;
}

/* The fields "k=v k=v ..." of a record line. Return: 0 or -1. */
static int parse_fields(struct kvlist *l, char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		unsigned long long val;
		bool neg;

		if (!eq || eq == tok)
			return -1;
		*eq = '\0';
		if (parse_num(eq + 1, &val, &neg) || kv_add(l, tok, val, neg))
			return -1;
	}
	return l->nr ? 0 : -1;
}

static int add_record(struct cache *c, const char *key, char *rest)
{
	struct record r = { .key = xstrdup(key) };
	size_t i;

	for (i = 0; i < c->nr_rec; i++)
		if (!strcmp(c->rec[i].key, key))
			goto bad;
	if (parse_fields(&r.fields, rest))
		goto bad;
	c->rec = xrealloc(c->rec, (c->nr_rec + 1) * sizeof(*c->rec));
	c->rec[c->nr_rec++] = r;
	return 0;
bad:
	free(r.key);
	kv_free(&r.fields);
	return -1;
}

/* One line of stats, without its newline. Return: 0, or -1 if malformed. */
static int parse_stats_line(struct cache *c, char *line)
{
	char *sp = strchr(line, ' ');
	unsigned long long val;

	if (!sp || sp == line || !sp[1])
		return -1;
	*sp = '\0';
	if (!strcmp(line, "name"))
		return 0;	/* the directory's name is the one we trust */
	if (strchr(sp + 1, '='))
		return add_record(c, line, sp + 1);
	if (parse_num(sp + 1, &val, NULL))
		return -1;
	return kv_add(&c->scalars, line, val, false);
}

/* Note malformed line @nr of @path, to be reported if @c is a cache. */
static void add_warning(struct cache *c, const char *path, size_t nr,
			const char *line)
{
	char *msg;

	if (asprintf(&msg, "%s:%zu: malformed line skipped: \"%.80s\"", path,
		     nr, line) < 0)
		die_oom();
	c->warn = xrealloc(c->warn, (c->malformed + 1) * sizeof(*c->warn));
	c->warn[c->malformed++] = msg;
}

/* Split @buf into lines and call @fn on each; note the malformed ones. */
static void parse_lines(struct cache *c, char *buf, const char *path,
			int (*fn)(struct cache *c, char *line, size_t nr))
{
	char *line = buf, *nl;
	size_t nr = 0;

	for (; *line; line = nl) {
		char copy[128];

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		nr++;
		if (!*line)
			continue;
		snprintf(copy, sizeof(copy), "%s", line);
		if (fn(c, line, nr))
			add_warning(c, path, nr, copy);
	}
}

static int stats_line(struct cache *c, char *line, size_t nr)
{
	return parse_stats_line(c, line);
}

/* The header of cpu_stats: "# cpu NAME NAME ...". */
static int cpu_header(struct cache *c, char *line)
{
	char *tok, *save = NULL;

	if (strncmp(line, "# cpu ", 6) || c->nr_cpu_key)
		return -1;
	for (tok = strtok_r(line + 6, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		c->cpu_key = xrealloc(c->cpu_key,
				      (c->nr_cpu_key + 1) * sizeof(char *));
		c->cpu_key[c->nr_cpu_key++] = xstrdup(tok);
	}
	return c->nr_cpu_key ? 0 : -1;
}

/* A line of cpu_stats: "CPU VALUE ...", as many values as the header. */
static int cpu_line(struct cache *c, char *line, size_t nr)
{
	struct cpu_row row = { 0 };
	unsigned long long cpu;
	char *tok, *save = NULL;
	size_t i = 0;

	if (nr == 1)
		return cpu_header(c, line);
	tok = strtok_r(line, " ", &save);
	if (!c->nr_cpu_key || !tok || parse_num(tok, &cpu, NULL) ||
	    cpu > UINT_MAX)
		return -1;
	row.cpu = cpu;
	row.val = xrealloc(NULL, c->nr_cpu_key * sizeof(*row.val));
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (i == c->nr_cpu_key || parse_num(tok, &row.val[i], NULL))
			break;
		i++;
	}
	if (tok || i != c->nr_cpu_key) {
		free(row.val);
		return -1;
	}
	c->cpu = xrealloc(c->cpu, (c->nr_cpu + 1) * sizeof(*c->cpu));
	c->cpu[c->nr_cpu++] = row;
	return 0;
}

/*
 * Read the cache @name of @root into @c.
 * Return: 0; 1 if it vanished or is not a cache (@c is then empty).
 */
static int load_cache(const char *root, const char *name, struct cache *c)
{
	char path[PATH_MAX];
	char *buf;
	size_t i;
	int err;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s/stats", root, name);
	err = read_file(path, &buf);
	if (err) {
		if (!vanished(-err))
			warnx("%s: %s", path, strerror(-err));
		return 1;
	}
	c->name = xstrdup(name);
	parse_lines(c, buf, path, stats_line);
	free(buf);
	for (i = 0; i < ARRAY_SIZE(required_keys); i++) {
		if (kv_find(&c->scalars, required_keys[i]))
			continue;
		/* Empty: it went between open() and read(). */
		if (c->scalars.nr || c->malformed)
			warnx("%s: no %s: not a slabx cache, skipped", path,
			      required_keys[i]);
		cache_free(c);
		return 1;
	}
	/* Optional: older modules have no cpu_stats. */
	snprintf(path, sizeof(path), "%s/%s/cpu_stats", root, name);
	if (!read_file(path, &buf)) {
		parse_lines(c, buf, path, cpu_line);
		free(buf);
	}
	for (i = 0; i < c->malformed; i++)
		warnx("%s", c->warn[i]);
	return 0;
}

static long long read_pages_held(const char *root)
{
	char path[PATH_MAX];
	unsigned long long val;
	char *buf, *p;
	long long ret = -1;

	snprintf(path, sizeof(path), "%s/summary", root);
	if (read_file(path, &buf))
		return -1;
	p = strstr(buf, "\npages_held ");
	if (p) {
		p += strlen("\npages_held ");
		p[strcspn(p, "\n")] = '\0';
		if (!parse_num(p, &val, NULL) && val <= LLONG_MAX)
			ret = val;
	}
	free(buf);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The names of the subdirectories of @root, sorted. Return: -errno or nr. */
static long list_caches(const char *root, char ***namesp)
{
	char **names = NULL;
	struct dirent *d;
	size_t nr = 0;
	DIR *dir;

	dir = opendir(root);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN)
			continue;
		names = xrealloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = xstrdup(d->d_name);
	}
	closedir(dir);
	qsort(names, nr, sizeof(*names), cmp_str);
	*namesp = names;
	return nr;
}

/* Read every cache under @root, or @only. Return: 0, or a negative errno. */
static int snapshot_take(const char *root, const char *only,
			 struct snapshot *s)
{
	char **names = NULL;
	long nr, i;

	memset(s, 0, sizeof(*s));
	nr = list_caches(root, &names);
	if (nr < 0)
		return nr;
	s->cache = xrealloc(NULL, nr * sizeof(*s->cache));
	for (i = 0; i < nr; i++) {
		if (listed_hook)
			listed_hook(root, names[i]);
		if ((!only || !strcmp(only, names[i])) &&
		    !load_cache(root, names[i], &s->cache[s->nr]))
			s->nr++;
		free(names[i]);
	}
	free(names);
	s->pages_held = read_pages_held(root);
	s->time = now();
	return 0;
}

static const struct cache *snapshot_find(const struct snapshot *s,
					 const char *name)
{
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->cache[i].name, name))
			return &s->cache[i];
	return NULL;
}

/* Whether @dir is missing or has nothing in it (an unmounted debugfs). */
static bool dir_empty(const char *dir)
{
	struct dirent *d;
	bool empty = true;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return errno != EACCES;
	while (empty && (d = readdir(dp)))
		empty = !strcmp(d->d_name, ".") || !strcmp(d->d_name, "..");
	closedir(dp);
	return empty;
}

/* The directory @path is in: "/a/b" -> "/a", "b" -> ".", "/b" -> "/". */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/*
 * Whether @root can be read, with a message saying why not: we may not
 * read it, debugfs is not mounted (the directory above @root is missing or
 * empty, as /sys/kernel/debug is without debugfs), or slabx is not loaded
 * (@root is missing). Return: 0 or 1.
 */
static int check_root(const char *root)
{
	char parent[PATH_MAX];
	struct stat st;
	int err = 0;

	if (stat(root, &st))
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (access(root, R_OK | X_OK))
		err = errno == EACCES ? EACCES : 0;
	if (err == EACCES) {
		warnx("cannot read %s: %s (debugfs is for root only)", root,
		      strerror(err));
		return 1;
	}
	if (err == ENOTDIR && !stat(root, &st)) {
		warnx("%s is not a directory", root);
		return 1;
	}
	if (err) {
		dir_of(root, parent, sizeof(parent));
		if (dir_empty(parent))
			warnx("debugfs is not mounted on %s (mount -t debugfs none %s)",
			      parent, parent);
		else
			warnx("slabx is not loaded: there is no %s (insmod slabx.ko)",
			      root);
		return 1;
	}
	return 0;
}

/* ---- figures ------------------------------------------------------------- */

static unsigned long long val(const struct cache *c, const char *key)
{
	const struct kv *kv = kv_find(&c->scalars, key);

	return kv ? kv->val : 0;
}

static const struct record *rec_find(const struct cache *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nr_rec; i++)
		if (!strcmp(c->rec[i].key, key))
			return &c->rec[i];
	return NULL;
}

static unsigned long long rec_val(const struct record *r, const char *key)
{
	const struct kv *kv = kv_find(&r->fields, key);

	return kv && !kv->neg ? kv->val : 0;
}

/* Whether @key is "@prefix" followed by a number only. */
static bool is_numbered(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(key, prefix, n) && key[n] &&
	       strspn(key + n, "0123456789") == strlen(key + n);
}

static unsigned long page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? ps : 4096;
}

/*
 * Memory held: the pages of the slabs, or for a pool-mode cache (it has no
 * slabs) the pool's objects and rings.
 */
static unsigned long long cache_memory(const struct cache *c)
{
	const struct record *pool = rec_find(c, "pool");
	unsigned long long mem = val(c, "pages") * page_size();

	if (pool)
		mem += rec_val(pool, "objects") * rec_val(pool, "size") +
		       rec_val(pool, "ring_bytes");
	return mem;
}

/* Memory held minus the bytes of the objects in use; never below 0. */
static unsigned long long cache_waste(const struct cache *c)
{
	unsigned long long mem = cache_memory(c);
	unsigned long long used = val(c, "objects_inuse") * val(c, "object_size");

	return mem > used ? mem - used : 0;
}

/* @part / @whole, or NAN when @whole is 0. */
static double ratio(unsigned long long part, unsigned long long whole)
{
	return whole ? (double)part / whole : NAN;
}

static double hit_rate(const struct cache *c)
{
	if (!val(c, "sheaf_capacity"))
		return NAN;
	return ratio(val(c, "alloc_fastpath"), val(c, "alloc"));
}

struct barn_totals {
	unsigned long long full;
	unsigned long long empty;
	unsigned long long max_full;	/* 0: not known */
};

static struct barn_totals barn_totals(const struct cache *c)
{
	struct barn_totals t = { 0 };
	size_t i;

	for (i = 0; i < c->nr_rec; i++) {
		if (!is_numbered(c->rec[i].key, "barn"))
			continue;
		t.full += rec_val(&c->rec[i], "full");
		t.empty += rec_val(&c->rec[i], "empty");
		t.max_full += val(c, "barn_max_full");
	}
	return t;
}

/* The per-second rate of counter @key since @prev, or NAN. */
static double rate(const struct cache *c, const struct cache *prev,
		   double dt, const char *key)
{
	unsigned long long a, b;

	if (!prev || dt <= 0)
		return NAN;
	a = val(prev, key);
	b = val(c, key);
	/* Gone down: a new cache of the same name. */
	if (b < a)
		return NAN;
	return (b - a) / dt;
}

/* Of the allocations since @prev, the share the sheaves served. */
static double hit_rate_since(const struct cache *c, const struct cache *prev)
{
	if (!prev || !val(c, "sheaf_capacity") ||
	    val(c, "alloc") < val(prev, "alloc") ||
	    val(c, "alloc_fastpath") < val(prev, "alloc_fastpath"))
		return NAN;
	return ratio(val(c, "alloc_fastpath") - val(prev, "alloc_fastpath"),
		     val(c, "alloc") - val(prev, "alloc"));
}

/* ---- formatting ---------------------------------------------------------- */

/* 4096 -> "4.0K", 139264 -> "136K", 100 -> "100". */
static void fmt_bytes(char *buf, size_t len, double v)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (v >= 1024 && u < (int)sizeof(units) - 2) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%.0f", v);
	else if (v < 9.95)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

/* A rate: 12.5, 1234, 1.2M; "-" for none. */
static void fmt_rate(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v < 100)
		snprintf(buf, len, "%.1f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
}

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", 100 * v);
}

/* ---- tables -------------------------------------------------------------- */

/* A cache in a table, with the same cache of the snapshot before. */
struct row {
	const struct cache *c;
	const struct cache *prev;
	double dt;
};

enum col_kind { COL_NAME, COL_COUNT, COL_BYTES, COL_PCT, COL_RATE, COL_BARN };

struct column {
	const char *key;	/* for -s */
	const char *head;
	int width;
	enum col_kind kind;
	double (*get)(const struct row *r);
	const char *help;
};

static double get_inuse(const struct row *r)
{
	return val(r->c, "objects_inuse");
}

static double get_total(const struct row *r)
{
	return val(r->c, "objects_total");
}

static double get_use(const struct row *r)
{
	return ratio(val(r->c, "objects_inuse"), val(r->c, "objects_total"));
}

static double get_objsize(const struct row *r)
{
	return val(r->c, "object_size");
}

static double get_memory(const struct row *r)
{
	return cache_memory(r->c);
}

static double get_slabs(const struct row *r)
{
	return val(r->c, "slabs");
}

static double get_order(const struct row *r)
{
	return val(r->c, "order");
}

static double get_sheaf(const struct row *r)
{
	return val(r->c, "sheaf_capacity");
}

static double get_hit(const struct row *r)
{
	return hit_rate(r->c);
}

static double get_barn(const struct row *r)
{
	if (!val(r->c, "sheaf_capacity"))
		return NAN;
	return barn_totals(r->c).full;
}

static double get_waste(const struct row *r)
{
	return cache_waste(r->c);
}

static double get_alloc_rate(const struct row *r)
{
	return rate(r->c, r->prev, r->dt, "alloc");
}

static double get_free_rate(const struct row *r)
{
	return rate(r->c, r->prev, r->dt, "free");
}

static double get_hit_since(const struct row *r)
{
	return hit_rate_since(r->c, r->prev);
}

static double get_slow_rate(const struct row *r)
{
	double a = rate(r->c, r->prev, r->dt, "alloc_slowpath");
	double f = rate(r->c, r->prev, r->dt, "free_slowpath");

	return a + f;
}

static double get_new_rate(const struct row *r)
{
	return rate(r->c, r->prev, r->dt, "slab_new");
}

static double get_discard_rate(const struct row *r)
{
	return rate(r->c, r->prev, r->dt, "slab_discard");
}

static const struct column col_name = {
	"name", "NAME", 4, COL_NAME, NULL, "cache name (sorted A-Z)"
};

static const struct column table_cols[] = {
	col_name,
	{ "inuse", "INUSE", 8, COL_COUNT, get_inuse,
	  "objects in use (objects_inuse: with users or in sheaves)" },
	{ "total", "TOTAL", 8, COL_COUNT, get_total,
	  "objects in all slabs (objects_total)" },
	{ "use", "USE%", 5, COL_PCT, get_use, "INUSE / TOTAL" },
	{ "objsize", "OBJSIZE", 7, COL_COUNT, get_objsize,
	  "object size asked for, bytes" },
	{ "memory", "MEMORY", 6, COL_BYTES, get_memory,
	  "memory held: pages x page size (pool-mode: the pool's objects and rings)" },
	{ "slabs", "SLABS", 6, COL_COUNT, get_slabs, "slabs held" },
	{ "order", "ORD", 3, COL_COUNT, get_order, "page order of a slab" },
	{ "sheaf", "SHEAF", 5, COL_COUNT, get_sheaf,
	  "sheaf capacity (0: no sheaves)" },
	{ "hit", "HIT%", 5, COL_PCT, get_hit,
	  "alloc_fastpath / alloc: allocations the sheaves served" },
	{ "barn", "BARN", 6, COL_BARN, get_barn,
	  "full sheaves in the barns / the barns' limit, all nodes" },
	{ "waste", "WASTE", 6, COL_BYTES, get_waste,
	  "MEMORY - INUSE x OBJSIZE: free objects, padding, slab headers" },
};

static const struct column live_cols[] = {
	col_name,
	{ "inuse", "INUSE", 8, COL_COUNT, get_inuse, "objects in use" },
	{ "total", "TOTAL", 8, COL_COUNT, get_total, "objects in all slabs" },
	{ "memory", "MEMORY", 6, COL_BYTES, get_memory, "memory held" },
	{ "alloc", "ALLOC/s", 8, COL_RATE, get_alloc_rate,
	  "objects allocated per second" },
	{ "free", "FREE/s", 8, COL_RATE, get_free_rate,
	  "objects freed per second" },
	{ "hit", "HIT%", 5, COL_PCT, get_hit_since,
	  "of the allocations in the interval, those the sheaves served" },
	{ "slow", "SLOW/s", 7, COL_RATE, get_slow_rate,
	  "objects per second that went to the slabs directly" },
	{ "new", "SLAB+/s", 7, COL_RATE, get_new_rate, "slabs created per second" },
	{ "discard", "SLAB-/s", 7, COL_RATE, get_discard_rate,
	  "slabs given back per second" },
	{ "barn", "BARN", 6, COL_BARN, get_barn, "full sheaves in the barns / limit" },
};

static void fmt_cell(char *buf, size_t len, const struct column *col,
		     const struct row *r)
{
	struct barn_totals b;

	switch (col->kind) {
	case COL_NAME:
		snprintf(buf, len, "%s", r->c->name);
		break;
	case COL_COUNT:
		snprintf(buf, len, "%.0f", col->get(r));
		break;
	case COL_BYTES:
		fmt_bytes(buf, len, col->get(r));
		break;
	case COL_PCT:
		fmt_pct(buf, len, col->get(r));
		break;
	case COL_RATE:
		fmt_rate(buf, len, col->get(r));
		break;
	case COL_BARN:
		b = barn_totals(r->c);
		if (!val(r->c, "sheaf_capacity"))
			snprintf(buf, len, "-");
		else if (b.max_full)
			snprintf(buf, len, "%llu/%llu", b.full, b.max_full);
		else
			snprintf(buf, len, "%llu", b.full);
		break;
	}
}

static const struct column *sort_col;

/* Names A-Z; figures largest first, none ("-") last; ties by name. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	double x, y;

	if (sort_col->kind != COL_NAME) {
		x = sort_col->get(a);
		y = sort_col->get(b);
		if (isnan(x) != isnan(y))
			return isnan(x) ? 1 : -1;
		if (!isnan(x) && x != y)
			return x > y ? -1 : 1;
	}
	return strcmp(a->c->name, b->c->name);
}

static const struct column *find_col(const struct column *cols, size_t nr,
				     const char *key)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcasecmp(cols[i].key, key))
			return &cols[i];
	return NULL;
}

static void sort_rows(struct row *rows, size_t nr, const struct column *col)
{
	sort_col = col;
	qsort(rows, nr, sizeof(*rows), cmp_rows);
}

static void print_table(FILE *f, const struct row *rows, size_t nr,
			const struct column *cols, size_t ncols)
{
	int namew = 4;
	char cell[64];
	size_t i, j;

	for (i = 0; i < nr; i++)
		if ((int)strlen(rows[i].c->name) > namew)
			namew = strlen(rows[i].c->name);
	fprintf(f, "%-*s", namew, cols[0].head);
	for (j = 1; j < ncols; j++)
		fprintf(f, " %*s", cols[j].width, cols[j].head);
	fputc('\n', f);
	for (i = 0; i < nr; i++) {
		fprintf(f, "%-*s", namew, rows[i].c->name);
		for (j = 1; j < ncols; j++) {
			fmt_cell(cell, sizeof(cell), &cols[j], &rows[i]);
			fprintf(f, " %*s", cols[j].width, cell);
		}
		fputc('\n', f);
	}
}

static void print_footer(FILE *f, const struct snapshot *s)
{
	char mem[32];

	fprintf(f, "%zu cache%s", s->nr, s->nr == 1 ? "" : "s");
	if (s->pages_held >= 0) {
		fmt_bytes(mem, sizeof(mem),
			  (double)s->pages_held * page_size());
		fprintf(f, "; slabx holds %lld pages (%s)", s->pages_held, mem);
	}
	fputc('\n', f);
}

/* ---- JSON ---------------------------------------------------------------- */

struct json {
	FILE *f;
	int depth;
	bool first[16];
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* A comma where one is due, then "key": when in an object. */
static void json_key(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key) {
		json_str(j->f, key);
		fputc(':', j->f);
	}
}

static void json_open(struct json *j, const char *key, char ch)
{
	json_key(j, key);
	fputc(ch, j->f);
	if (j->depth < (int)ARRAY_SIZE(j->first) - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char ch)
{
	fputc(ch, j->f);
	if (j->depth)
		j->depth--;
}

static void json_u64(struct json *j, const char *key, unsigned long long v,
		     bool neg)
{
	json_key(j, key);
	fprintf(j->f, "%s%llu", neg ? "-" : "", v);
}

/* A figure; NAN is null. */
static void json_num(struct json *j, const char *key, double v)
{
	json_key(j, key);
	if (isnan(v) || isinf(v))
		fputs("null", j->f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(j->f, "%.0f", v);
	else
		fprintf(j->f, "%.6g", v);
}

static void json_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j->f, s);
}

static void json_kvlist(struct json *j, const struct kvlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		json_u64(j, l->v[i].key, l->v[i].val, l->v[i].neg);
}

/* The records "PREFIXn" as an array of objects, each with "what": n. */
static void json_numbered(struct json *j, const struct cache *c,
			  const char *prefix, const char *key, const char *what)
{
	size_t i, n = strlen(prefix);

	json_open(j, key, '[');
	for (i = 0; i < c->nr_rec; i++) {
		if (!is_numbered(c->rec[i].key, prefix))
			continue;
		json_open(j, NULL, '{');
		json_num(j, what, atof(c->rec[i].key + n));
		json_kvlist(j, &c->rec[i].fields);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void json_cpus(struct json *j, const struct cache *c)
{
	size_t i, k;

	json_open(j, "cpus", '[');
	for (i = 0; i < c->nr_cpu; i++) {
		json_open(j, NULL, '{');
		json_num(j, "cpu", c->cpu[i].cpu);
		for (k = 0; k < c->nr_cpu_key; k++)
			json_u64(j, c->cpu_key[k], c->cpu[i].val[k], false);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void json_rates(struct json *j, const struct row *r)
{
	size_t i;

	json_open(j, "rates", '{');
	for (i = 0; i < r->c->scalars.nr; i++) {
		const char *key = r->c->scalars.v[i].key;

		if (is_counter(key))
			json_num(j, key, rate(r->c, r->prev, r->dt, key));
	}
	json_close(j, '}');
	json_num(j, "hit_rate_interval", hit_rate_since(r->c, r->prev));
}

/* One cache: its lines as they are, then the figures slabxinfo derives. */
static void json_cache(struct json *j, const struct row *r, bool detail,
		       bool live)
{
	const struct cache *c = r->c;
	struct barn_totals b = barn_totals(c);
	size_t i;

	json_open(j, NULL, '{');
	json_string(j, "name", c->name);
	json_kvlist(j, &c->scalars);
	json_numbered(j, c, "node", "nodes", "node");
	json_numbered(j, c, "barn", "barns", "node");
	for (i = 0; i < c->nr_rec; i++) {
		if (is_numbered(c->rec[i].key, "node") ||
		    is_numbered(c->rec[i].key, "barn"))
			continue;
		json_open(j, c->rec[i].key, '{');
		json_kvlist(j, &c->rec[i].fields);
		json_close(j, '}');
	}
	json_num(j, "memory", cache_memory(c));
	json_num(j, "waste", cache_waste(c));
	json_num(j, "use", get_use(r));
	json_num(j, "hit_rate", hit_rate(c));
	json_num(j, "free_hit_rate", ratio(val(c, "free_fastpath"),
					   val(c, "free")));
	json_num(j, "barn_full", b.full);
	json_num(j, "barn_empty", b.empty);
	json_num(j, "barn_limit", b.max_full ? b.max_full : NAN);
	json_num(j, "malformed_lines", c->malformed);
	if (detail)
		json_cpus(j, c);
	if (live)
		json_rates(j, r);
	json_close(j, '}');
}

/* The whole output of one look (or of one refresh with -w), on one line. */
static void json_doc(FILE *f, const struct opts *o, const struct snapshot *s,
		     const struct row *rows, size_t nr, double dt)
{
	struct json j = { .f = f, .first = { true } };
	size_t i;

	json_open(&j, NULL, '{');
	json_string(&j, "root", o->root);
	json_num(&j, "page_size", page_size());
	json_num(&j, "pages_held", s->pages_held < 0 ? NAN : s->pages_held);
	if (dt > 0)
		json_num(&j, "interval", dt);
	json_open(&j, "caches", '[');
	for (i = 0; i < nr; i++)
		json_cache(&j, &rows[i], !!o->cache, dt > 0);
	json_close(&j, ']');
	json_close(&j, '}');
	fputc('\n', f);
}

/* ---- the cache view ------------------------------------------------------ */

static void print_ratio(FILE *f, const char *what, double v)
{
	char buf[16];

	fmt_pct(buf, sizeof(buf), v);
	fprintf(f, "%s%s%s", what, buf, isnan(v) ? "" : "%");
}

/* The shares of what went well: sheaves, barns, allocations. */
static void print_ratios(FILE *f, const struct cache *c)
{
	unsigned long long get = val(c, "barn_get"), put = val(c, "barn_put");
	unsigned long long alloc = val(c, "alloc"), fail = val(c, "alloc_fail");
	double free_hit = ratio(val(c, "free_fastpath"), val(c, "free"));

	print_ratio(f, "alloc hit ", hit_rate(c));
	print_ratio(f, ", free hit ", free_hit);
	print_ratio(f, ", barn get ", ratio(get, get + val(c, "barn_get_fail")));
	print_ratio(f, ", barn put ", ratio(put, put + val(c, "barn_put_fail")));
	print_ratio(f, ", alloc fail ", ratio(fail, alloc + fail));
	fputc('\n', f);
}

static void print_overview(FILE *f, const struct cache *c)
{
	struct barn_totals b = barn_totals(c);
	unsigned long long mem = cache_memory(c);
	char mems[32], waste[32];

	fmt_bytes(mems, sizeof(mems), mem);
	fmt_bytes(waste, sizeof(waste), cache_waste(c));
	fprintf(f, "cache %s\n", c->name);
	fprintf(f, "  objects  %llu in use of %llu (",
		val(c, "objects_inuse"), val(c, "objects_total"));
	print_ratio(f, "", ratio(val(c, "objects_inuse"),
				 val(c, "objects_total")));
	fprintf(f, "), %llu bytes each\n", val(c, "object_size"));
	if (rec_find(c, "pool"))
		fprintf(f, "  memory   %s in its pool, waste %s (", mems, waste);
	else
		fprintf(f, "  memory   %s in %llu slabs of order %llu, waste %s (",
			mems, val(c, "slabs"), val(c, "order"), waste);
	print_ratio(f, "", ratio(cache_waste(c), mem));
	fprintf(f, ")\n  sheaves  capacity %llu, barns: %llu full",
		val(c, "sheaf_capacity"), b.full);
	if (b.max_full)
		fprintf(f, " of %llu", b.max_full);
	fprintf(f, ", %llu empty\n  ratios   ", b.empty);
	print_ratios(f, c);
}

static void print_state(FILE *f, const struct cache *c)
{
	size_t i;

	fputs("\nstate\n", f);
	for (i = 0; i < c->scalars.nr; i++)
		if (!is_counter(c->scalars.v[i].key))
			fprintf(f, "  %-24s %llu\n", c->scalars.v[i].key,
				c->scalars.v[i].val);
}

/* Index of @key in cpu_stats' header, or -1. */
static long cpu_index(const struct cache *c, const char *key)
{
	size_t k;

	for (k = 0; k < c->nr_cpu_key; k++)
		if (!strcmp(c->cpu_key[k], key))
			return k;
	return -1;
}

/* Whether any counter of CPU row @i is not 0. */
static bool cpu_busy(const struct cache *c, size_t i)
{
	size_t k;

	for (k = 0; k < c->nr_cpu_key; k++)
		if (c->cpu[i].val[k])
			return true;
	return false;
}

static const struct cpu_row *prev_cpu(const struct cache *prev,
				      unsigned int cpu)
{
	size_t i;

	for (i = 0; prev && i < prev->nr_cpu; i++)
		if (prev->cpu[i].cpu == cpu)
			return &prev->cpu[i];
	return NULL;
}

/* A CPU's counter @key, or its rate since @prev when live. */
static void fmt_cpu_cell(char *buf, size_t len, const struct row *r,
			 size_t i, const char *key, bool live)
{
	const struct cpu_row *p;
	long k = cpu_index(r->c, key), pk;
	unsigned long long v;

	if (k < 0) {
		snprintf(buf, len, "-");
		return;
	}
	v = r->c->cpu[i].val[k];
	if (!live) {
		snprintf(buf, len, "%llu", v);
		return;
	}
	p = prev_cpu(r->prev, r->c->cpu[i].cpu);
	pk = r->prev ? cpu_index(r->prev, key) : -1;
	if (!p || pk < 0 || p->val[pk] > v)
		fmt_rate(buf, len, NAN);
	else
		fmt_rate(buf, len, (v - p->val[pk]) / r->dt);
}

/* The header of print_counters(). Return: how many CPUs it leaves out. */
static size_t print_counters_head(FILE *f, const struct cache *c, bool live)
{
	size_t i, idle = 0;
	char cell[32];

	fprintf(f, "\n%-24s %14s", "counter", "total");
	if (live)
		fprintf(f, " %10s", "/s");
	for (i = 0; i < c->nr_cpu; i++) {
		if (!cpu_busy(c, i)) {
			idle++;
			continue;
		}
		snprintf(cell, sizeof(cell), "cpu%u%s", c->cpu[i].cpu,
			 live ? "/s" : "");
		fprintf(f, " %10s", cell);
	}
	fputc('\n', f);
	return idle;
}

/*
 * The counters, one line each: the total, with -w its rate, then each CPU
 * that counted anything (its count, or with -w its rate).
 */
static void print_counters(FILE *f, const struct row *r, bool live)
{
	const struct cache *c = r->c;
	size_t i, k, idle;
	char cell[32];

	idle = print_counters_head(f, c, live);
	for (k = 0; k < c->scalars.nr; k++) {
		const char *key = c->scalars.v[k].key;

		if (!is_counter(key))
			continue;
		fprintf(f, "  %-22s %14llu", key, c->scalars.v[k].val);
		if (live) {
			fmt_rate(cell, sizeof(cell),
				 rate(c, r->prev, r->dt, key));
			fprintf(f, " %10s", cell);
		}
		for (i = 0; i < c->nr_cpu; i++) {
			if (!cpu_busy(c, i))
				continue;
			fmt_cpu_cell(cell, sizeof(cell), r, i, key, live);
			fprintf(f, " %10s", cell);
		}
		fputc('\n', f);
	}
	if (idle)
		fprintf(f, "  (%zu CPU%s with no events not shown)\n", idle,
			idle == 1 ? "" : "s");
}

/* The records "PREFIXn" as a table, the columns from the first one. */
static void print_numbered(FILE *f, const struct cache *c, const char *prefix)
{
	const struct record *first = NULL;
	size_t i, k;

	for (i = 0; i < c->nr_rec && !first; i++)
		if (is_numbered(c->rec[i].key, prefix))
			first = &c->rec[i];
	if (!first)
		return;
	fprintf(f, "\n%-8s", prefix);
	for (k = 0; k < first->fields.nr; k++)
		fprintf(f, " %10s", first->fields.v[k].key);
	fputc('\n', f);
	for (i = 0; i < c->nr_rec; i++) {
		const struct record *r = &c->rec[i];

		if (!is_numbered(r->key, prefix))
			continue;
		fprintf(f, "  %-6s", r->key + strlen(prefix));
		for (k = 0; k < first->fields.nr; k++) {
			const struct kv *kv = kv_find(&r->fields,
						      first->fields.v[k].key);

			if (kv)
				fprintf(f, " %10llu", kv->val);
			else
				fprintf(f, " %10s", "-");
		}
		fputc('\n', f);
	}
}

/* Records other than nodes and barns (the pool) as "key k=v ..." lines. */
static void print_other_records(FILE *f, const struct cache *c)
{
	size_t i, k;

	for (i = 0; i < c->nr_rec; i++) {
		const struct record *r = &c->rec[i];

		if (is_numbered(r->key, "node") || is_numbered(r->key, "barn"))
			continue;
		fprintf(f, "\n%s\n", r->key);
		for (k = 0; k < r->fields.nr; k++)
			fprintf(f, "  %-24s %s%llu\n", r->fields.v[k].key,
				r->fields.v[k].neg ? "-" : "",
				r->fields.v[k].val);
	}
}

static void print_cache(FILE *f, const struct row *r, bool live)
{
	print_overview(f, r->c);
	print_state(f, r->c);
	print_counters(f, r, live);
	print_numbered(f, r->c, "node");
	print_numbered(f, r->c, "barn");
	print_other_records(f, r->c);
}

/* ---- one look, or a live view -------------------------------------------- */

/* Rows for @cur (with their caches in @prev); just @name's if set. */
static size_t make_rows(struct row *rows, const struct snapshot *cur,
			const struct snapshot *prev, const char *name)
{
	size_t i, nr = 0;

	for (i = 0; i < cur->nr; i++) {
		if (name && strcmp(cur->cache[i].name, name))
			continue;
		rows[nr].c = &cur->cache[i];
		rows[nr].prev = snapshot_find(prev, cur->cache[i].name);
		rows[nr].dt = prev ? cur->time - prev->time : 0;
		nr++;
	}
	return nr;
}

static void show_header(FILE *f, double dt)
{
	time_t t = time(NULL);
	char when[32];

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&t));
	if (isatty(fileno(f)))
		fputs("\033[H\033[2J", f);
	fprintf(f, "slabxinfo %s: rates per second over %.1f s\n", when, dt);
}

/* Print @cur; rates since @prev when it is not NULL. Return: exit status. */
static int show(const struct opts *o, const struct snapshot *cur,
		const struct snapshot *prev)
{
	const struct column *cols = prev ? live_cols : table_cols;
	size_t ncols = prev ? ARRAY_SIZE(live_cols) : ARRAY_SIZE(table_cols);
	struct row *rows = xrealloc(NULL, cur->nr * sizeof(*rows));
	size_t nr = make_rows(rows, cur, prev, o->cache);

	if (o->cache && !nr) {
		warnx("no cache %s in %s", o->cache, o->root);
		free(rows);
		return 1;
	}
	sort_rows(rows, nr, find_col(cols, ncols, o->sort ? o->sort : "memory"));
	if (o->json) {
		json_doc(stdout, o, cur, rows, nr,
			 prev ? cur->time - prev->time : 0);
	} else {
		if (prev)
			show_header(stdout, cur->time - prev->time);
		if (o->cache) {
			print_cache(stdout, &rows[0], !!prev);
		} else {
			print_table(stdout, rows, nr, cols, ncols);
			print_footer(stdout, cur);
		}
		if (prev)
			fputc('\n', stdout);
	}
	fflush(stdout);
	free(rows);
	return 0;
}

/* A snapshot, after checking that slabx is (still) there. */
static int take(const struct opts *o, struct snapshot *s)
{
	int err;

	if (check_root(o->root))
		return 1;
	err = snapshot_take(o->root, o->cache, s);
	/* Gone since check_root(): say why again. */
	if (err && (!vanished(-err) || !check_root(o->root)))
		warnx("%s: %s", o->root, strerror(-err));
	return err ? 1 : 0;
}

static void sleep_for(double seconds)
{
	struct timespec ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int watch(const struct opts *o)
{
	struct snapshot prev, cur;
	unsigned long i;
	int rc = 0;

	if (take(o, &prev))
		return 1;
	for (i = 0; !rc && (!o->count || i < o->count); i++) {
		sleep_for(o->interval);
		if (take(o, &cur)) {
			rc = 1;
			break;
		}
		rc = show(o, &cur, &prev);
		snapshot_free(&prev);
		prev = cur;
	}
	snapshot_free(&prev);
	return rc;
}

static int look(const struct opts *o)
{
	struct snapshot s;
	int rc;

	if (take(o, &s))
		return 1;
	rc = show(o, &s, NULL);
	snapshot_free(&s);
	return rc;
}

/* ---- command line -------------------------------------------------------- */

static void print_cols(FILE *f, const struct column *cols, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		fprintf(f, "  %-8s %-8s %s\n", cols[i].key, cols[i].head,
			cols[i].help);
}

static void print_help(FILE *f)
{
	fputs("usage: slabxinfo [-j] [-s COLUMN] [-w SECONDS [-n COUNT]] [--root DIR] [CACHE]\n"
	      "\n"
	      "Show slabx's caches, from its debugfs files.\n"
	      "\n"
	      "  (no CACHE)        a table of all caches, largest MEMORY first\n"
	      "  CACHE             every counter of that cache, per CPU that\n"
	      "                    counted anything, its state, its nodes and barns\n"
	      "  -s, --sort COL    sort the table by COL (a key below); names\n"
	      "                    A-Z, figures largest first, \"-\" last\n"
	      "  -w, --watch SECS  a live view: every SECS seconds, the counters\n"
	      "                    as rates per second over the interval\n"
	      "  -n, --count N     with -w: stop after N refreshes\n"
	      "  -j, --json        JSON instead (with -w: one document a line)\n"
	      "  --root DIR        read DIR, e.g. a copy of the tree, instead\n"
	      "                    of $" ROOT_ENV " or " DEFAULT_ROOT "\n"
	      "  -h, --help        this text\n"
	      "\n"
	      "Columns of the table:\n", f);
	print_cols(f, table_cols, ARRAY_SIZE(table_cols));
	fputs("\nColumns of the live view (-w):\n", f);
	print_cols(f, live_cols, ARRAY_SIZE(live_cols));
	fputs("\nObjects in use include those cached in the per-CPU sheaves and\n"
	      "the barns, so WASTE counts them as used. \"-\": no figure (no\n"
	      "allocations, no sheaves, or no earlier sample).\n"
	      "\n"
	      "Exit status: 0; 1 when debugfs is not mounted, slabx is not\n"
	      "loaded or the CACHE does not exist; 2 on a bad command line.\n", f);
}

/* A positive number of at most @max. Return: 0 or -1. */
static int parse_positive(const char *s, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !(*v > 0) || *v > max)
		return -1;
	return 0;
}

static __printf(1, 2) int bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("slabxinfo: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\nTry 'slabxinfo --help'.\n", stderr);
	va_end(ap);
	return EXIT_USAGE;
}

/* Check what the options ask for, once they are all read. */
static int check_opts(const struct opts *o, bool count_set)
{
	const struct column *cols = o->interval ? live_cols : table_cols;
	size_t n = o->interval ? ARRAY_SIZE(live_cols) : ARRAY_SIZE(table_cols);

	if (count_set && !o->interval)
		return bad_usage("%s needs -w SECONDS", "-n");
	if (o->sort && !find_col(cols, n, o->sort))
		return bad_usage("no column %s to sort by (see --help)", o->sort);
	if (o->cache && (!*o->cache || strchr(o->cache, '/') ||
			 o->cache[0] == '.'))
		return bad_usage("%s is not a cache name", o->cache);
	return 0;
}

/* Return: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool count_set = false;
	double v;
	int ch;

	memset(o, 0, sizeof(*o));
	o->root = getenv(ROOT_ENV);
	if (!o->root || !*o->root)
		o->root = DEFAULT_ROOT;
	while ((ch = getopt_long(argc, argv, "s:w:n:jh", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			o->sort = optarg;
			break;
		case 'w':
			if (parse_positive(optarg, 86400, &o->interval))
				return bad_usage("-w %s: want seconds, 0 < SECONDS <= 86400",
						 optarg);
			break;
		case 'n':
			if (parse_positive(optarg, 1e9, &v) || v != floor(v))
				return bad_usage("-n %s: want a count, 1 or more",
						 optarg);
			o->count = v;
			count_set = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'r':
			o->root = optarg;
			break;
		case 'h':
			print_help(stdout);
			return 0;
		default:
			fputs("Try 'slabxinfo --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1)
		return bad_usage("one CACHE at most, not %s", argv[optind + 1]);
	o->cache = argv[optind];
	return check_opts(o, count_set) ?: -1;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	return o.interval ? watch(&o) : look(&o);
}
