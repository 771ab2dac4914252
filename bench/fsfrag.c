// SPDX-License-Identifier: GPL-2.0
/*
 * fsfrag - the file workload of `make bench-system`, run inside the guest.
 *
 * It does to the slab caches what `updatedb` plus a checkout plus a day of
 * use do to a desktop: fill the dentry, inode and page-cache XArray caches
 * with objects of one lifetime, delete most of them in an interleaved
 * order so that the survivors are spread over every slab, then push the
 * machine into reclaim once and ask for huge pages.  Every choice comes from
 * a fixed-seed generator, so two kernels see the same sequence of calls.
 *
 *   fsfrag populate DIR NFILES SEED   NFILES files in NFILES/100 directories
 *                                     (sizes 1 page .. 384 KiB), read back,
 *                                     stat everything
 *   fsfrag churn DIR NFILES SEED      delete 4 of every 5 files in stride
 *                                     order and every 20th directory whole,
 *                                     create NFILES/20 new files, read a
 *                                     random eighth of what is left
 *   fsfrag pressure                   allocate and touch anonymous memory
 *                                     until MemAvailable is down to 10 % of
 *                                     MemTotal, then release it
 *   fsfrag huge [PHASE]               compact_memory, then as many hugetlb
 *                                     pages as the guest could hold (kept
 *                                     count printed, then released), then a
 *                                     MADV_HUGEPAGE anonymous mapping; its
 *                                     records carry PHASE (default "huge":
 *                                     bench/system runs it as "fresh" right
 *                                     after boot too)
 *   fsfrag record PHASE               print the state (below)
 *   fsfrag pathwalk DIR NDIRS NFILES ROUNDS
 *                                     the cached path walk of bench/pathwalk:
 *                                     DIR/dNNN/eN/fNNNNN, NDIRS directories
 *                                     of 8 subdirectories of NFILES empty
 *                                     files each (created if absent), every
 *                                     path stat()ed once to warm the dcache,
 *                                     then ROUNDS timed passes of stat()
 *                                     over all of them
 *
 * Output: one record per line, fields separated by blanks, first the phase:
 *   PHASE cache NAME ACTIVE_OBJS NUM_OBJS OBJSIZE OBJS_PER_SLAB PAGES_PER_SLAB SLABS
 *                                  (every /proc/slabinfo cache with >= 8 slabs)
 *   PHASE dentry-state NR_DENTRY NR_UNUSED NR_NEGATIVE
 *   PHASE meminfo KEY KB            (MemTotal MemFree MemAvailable Slab
 *                                    SReclaimable SUnreclaim AnonHugePages)
 *   PHASE buddy NODE ORDER_GE9      free blocks of order >= 9 on NODE
 *   PHASE pageblocks NODE TYPE N    pageblocks of migrate TYPE on NODE
 *                                   (/proc/pagetypeinfo, zones summed)
 *   PHASE vmstat KEY VALUE          (compact_*, thp_*, slab_defrag_* and
 *                                   reclaim counters)
 *   PHASE hugetlb WANTED GOT        2 MiB hugetlb pages asked for / obtained
 *   PHASE thp MAPPED_KB HUGE_KB     the anonymous mapping and its huge part
 *   PHASE step SECONDS NR           a step's duration (a time: noisy under
 *                                   TCG) and the number of files it touched
 *   pathwalk round R ns_per_stat X  one timed pass (CLOCK_MONOTONIC)
 *   pathwalk paths N median_ns_per_stat M
 *                                   the median over the ROUNDS passes
 * A failing system call stops the program with its errno and exit status 1.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define FILES_PER_DIR	100
#define HUGE_2M		(2UL << 20)
#define PW_SUBDIRS	8

static const char *phase = "-";

static void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	fprintf(stderr, "fsfrag: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

/* xorshift64*: small, fixed, the same on every kernel */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
}

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 80 % one page, 15 % 2..8 pages, 4 % 9..32 pages, 1 % 33..96 pages */
static size_t file_size(void)
{
	unsigned int r = rng() % 100;

	if (r < 80)
		return PAGE;
	if (r < 95)
		return (2 + rng() % 7) * PAGE;
	if (r < 99)
		return (9 + rng() % 24) * PAGE;
	return (33 + rng() % 64) * PAGE;
}

static char buf[96 * PAGE];

static void path_of(char *p, size_t len, const char *dir, const char *sub,
		    unsigned long i)
{
	snprintf(p, len, "%s/%s%05lu/f%07lu", dir, sub, i / FILES_PER_DIR, i);
}

static void write_file(const char *p, size_t size)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t done = 0;

	if (fd < 0)
		die("create %s", p);
	while (done < size) {
		ssize_t n = write(fd, buf, size - done);

		if (n < 0)
			die("write %s", p);
		done += n;
	}
	if (close(fd))
		die("close %s", p);
}

/* Read @p whole; a missing file is fine when @may_miss (it was deleted) */
static int read_file(const char *p, int may_miss)
{
	int fd = open(p, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		if (may_miss && errno == ENOENT)
			return 0;
		die("open %s", p);
	}
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0);
	if (n < 0)
		die("read %s", p);
	close(fd);
	return 1;
}

static void make_dir(const char *p)
{
	if (mkdir(p, 0755) && errno != EEXIST)
		die("mkdir %s", p);
}

static void dir_of(char *p, size_t len, const char *dir, const char *sub,
		   unsigned long d)
{
	snprintf(p, len, "%s/%s%05lu", dir, sub, d);
}

/* stat every entry below @dir: what updatedb does */
static unsigned long stat_tree(const char *dir)
{
	unsigned long n = 0;
	struct dirent *de;
	char p[4096];
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		die("opendir %s", dir);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (lstat(p, &st))
			die("stat %s", p);
		n++;
		if (S_ISDIR(st.st_mode))
			n += stat_tree(p);
	}
	closedir(d);
	return n;
}

static void step(const char *what, double t0, unsigned long nr)
{
	printf("%s step-%s %.2f %lu\n", phase, what, now() - t0, nr);
	fflush(stdout);
}

static void populate(const char *dir, unsigned long nfiles)
{
	unsigned long i, n = 0;
	double t0 = now();
	char p[4096];

	memset(buf, 0x5a, sizeof(buf));
	make_dir(dir);
	for (i = 0; i < nfiles; i++) {
		if (i % FILES_PER_DIR == 0) {
			dir_of(p, sizeof(p), dir, "d", i / FILES_PER_DIR);
			make_dir(p);
		}
		path_of(p, sizeof(p), dir, "d", i);
		write_file(p, file_size());
	}
	step("create", t0, nfiles);
	t0 = now();
	for (i = 0; i < nfiles; i++) {
		path_of(p, sizeof(p), dir, "d", i);
		n += read_file(p, 0);
	}
	step("read", t0, n);
	t0 = now();
	step("stat", t0, stat_tree(dir));
}

static void churn(const char *dir, unsigned long nfiles)
{
	unsigned long i, d, ndirs = (nfiles + FILES_PER_DIR - 1) / FILES_PER_DIR;
	unsigned long deleted = 0, created = 0, read = 0, stride;
	double t0 = now();
	char p[4096];

	/*
	 * Whole directories first (every 20th), then in stride order one file
	 * in five is kept: file i goes when i % 5 != 0, visited with a stride
	 * coprime to NFILES so that deletions interleave across the tree as
	 * stress-ng's "stride" dentry order does.
	 */
	for (d = 0; d < ndirs; d += 20) {
		for (i = d * FILES_PER_DIR; i < (d + 1) * FILES_PER_DIR && i < nfiles; i++) {
			path_of(p, sizeof(p), dir, "d", i);
			if (unlink(p) == 0)
				deleted++;
			else if (errno != ENOENT)
				die("unlink %s", p);
		}
		dir_of(p, sizeof(p), dir, "d", d);
		if (rmdir(p))
			die("rmdir %s", p);
	}
	stride = 7919;
	while (nfiles % stride == 0)
		stride += 2;
	for (i = 0, d = 0; i < nfiles; i++) {
		unsigned long f = (i * stride) % nfiles;

		if (f % 5 == 0 || (f / FILES_PER_DIR) % 20 == 0)
			continue;
		path_of(p, sizeof(p), dir, "d", f);
		if (unlink(p))
			die("unlink %s", p);
		deleted++;
	}
	step("delete", t0, deleted);

	t0 = now();
	for (i = 0; i < nfiles / 20; i++) {
		if (i % FILES_PER_DIR == 0) {
			dir_of(p, sizeof(p), dir, "n", i / FILES_PER_DIR);
			make_dir(p);
		}
		path_of(p, sizeof(p), dir, "n", i);
		write_file(p, file_size());
		created++;
	}
	step("create-new", t0, created);

	t0 = now();
	for (i = 0; i < nfiles / 8; i++) {
		path_of(p, sizeof(p), dir, "d", rng() % nfiles);
		read += read_file(p, 1);
	}
	step("read-random", t0, read);
}

static long meminfo(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = atol(line + len + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

/*
 * Reclaim once, as a desktop does daily: take anonymous memory until what
 * is available is a tenth of the total.  Nearer the watermarks the OOM
 * killer strikes: MemAvailable counts page cache and reclaimable slab that
 * reclaim cannot always free at once.
 */
static void pressure(void)
{
	long total = meminfo("MemTotal"), floor = total / 10;
	const size_t chunk = 8UL << 20;
	unsigned long mapped = 0;
	double t0 = now();
	char **chunks = calloc(total / (chunk >> 10) + 1, sizeof(*chunks));
	unsigned long n = 0, i;

	if (!chunks)
		die("calloc");
	while (meminfo("MemAvailable") - (long)(chunk >> 10) > floor) {
		char *c = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (c == MAP_FAILED)
			die("mmap");
		memset(c, 1, chunk);
		chunks[n++] = c;
		mapped += chunk >> 10;
	}
	printf("%s pressure-peak-kB %lu %ld\n", phase, mapped, meminfo("MemAvailable"));
	for (i = 0; i < n; i++)
		munmap(chunks[i], chunk);
	free(chunks);
	step("pressure", t0, n);
}

static void write_sysctl(const char *p, const char *v)
{
	int fd = open(p, O_WRONLY);

	if (fd < 0)
		die("open %s", p);
	if (write(fd, v, strlen(v)) < 0)
		die("write %s", p);
	close(fd);
}

static long read_long(const char *p)
{
	char s[64] = "";
	int fd = open(p, O_RDONLY);

	if (fd < 0)
		die("open %s", p);
	if (read(fd, s, sizeof(s) - 1) < 0)
		die("read %s", p);
	close(fd);
	return atol(s);
}

static void huge(void)
{
	const char *nr = "/proc/sys/vm/nr_hugepages";
	long want = meminfo("MemTotal") / (HUGE_2M >> 10), got;
	long before, after;
	size_t len, i;
	double t0 = now();
	char v[32];
	char *m;

	write_sysctl("/proc/sys/vm/compact_memory", "1");
	step("compact", t0, 0);

	snprintf(v, sizeof(v), "%ld", want);
	write_sysctl(nr, v);
	got = read_long(nr);
	printf("%s hugetlb %ld %ld\n", phase, want, got);
	write_sysctl(nr, "0");

	/* Half of what is available, in a mapping that asks for huge pages */
	len = (meminfo("MemAvailable") / 2 / (HUGE_2M >> 10)) * HUGE_2M;
	m = mmap(NULL, len + HUGE_2M, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	m = (char *)(((uintptr_t)m + HUGE_2M - 1) & ~(HUGE_2M - 1));
	if (madvise(m, len, MADV_HUGEPAGE))
		die("madvise");
	before = meminfo("AnonHugePages");
	for (i = 0; i < len; i += PAGE)
		m[i] = 1;
	after = meminfo("AnonHugePages");
	printf("%s thp %lu %ld\n", phase, (unsigned long)(len >> 10), after - before);
	step("thp", t0, len / HUGE_2M);
}

static void record(void)
{
	static const char * const mem_keys[] = {
		"MemTotal", "MemFree", "MemAvailable", "Slab", "SReclaimable",
		"SUnreclaim", "AnonHugePages",
	};
	char line[1024], name[128];
	unsigned long a, b, c, d, e, f, g;
	long nr, unused, age, want, dummy, negative;
	unsigned int i;
	FILE *fp;

	fp = fopen("/proc/slabinfo", "r");
	if (!fp)
		die("/proc/slabinfo");
	while (fgets(line, sizeof(line), fp)) {
		/* name active num objsize objperslab pagesperslab : tunables .. : slabdata active num 0 */
		if (sscanf(line, "%127s %lu %lu %lu %lu %lu : tunables %*u %*u %*u : slabdata %lu %lu",
			   name, &a, &b, &c, &d, &e, &f, &g) != 8)
			continue;
		if (g >= 8)
			printf("%s cache %s %lu %lu %lu %lu %lu %lu\n", phase, name, a, b, c, d, e, g);
	}
	fclose(fp);

	fp = fopen("/proc/sys/fs/dentry-state", "r");
	if (!fp)
		die("/proc/sys/fs/dentry-state");
	if (fscanf(fp, "%ld %ld %ld %ld %ld %ld", &nr, &unused, &age, &want,
		   &negative, &dummy) < 5)
		die("dentry-state: short");
	fclose(fp);
	printf("%s dentry-state %ld %ld %ld\n", phase, nr, unused, negative);

	for (i = 0; i < sizeof(mem_keys) / sizeof(mem_keys[0]); i++)
		printf("%s meminfo %s %ld\n", phase, mem_keys[i], meminfo(mem_keys[i]));

	/* Node 0, zone   Normal   n0 n1 ... n10 */
	fp = fopen("/proc/buddyinfo", "r");
	if (!fp)
		die("/proc/buddyinfo");
	{
		unsigned long ge9[64] = { 0 };
		int node, maxnode = -1;

		while (fgets(line, sizeof(line), fp)) {
			char *s = line;
			int order = 0, used;
			unsigned long cnt;

			if (sscanf(s, "Node %d, zone %*s%n", &node, &used) < 1 ||
			    node < 0 || node >= 64)
				continue;
			s += used;
			while (sscanf(s, "%lu%n", &cnt, &used) == 1) {
				if (order >= 9)
					ge9[node] += cnt << (order - 9);
				order++;
				s += used;
			}
			if (node > maxnode)
				maxnode = node;
		}
		for (node = 0; node <= maxnode; node++)
			printf("%s buddy %d %lu\n", phase, node, ge9[node]);
	}
	fclose(fp);

	/*
	 * "Number of blocks type     Unmovable  Movable ..." then one line per
	 * zone: "Node 0, zone   Normal   n1 n2 ...".  A block of a type other
	 * than Movable is where unmovable or reclaimable allocations went.
	 */
	fp = fopen("/proc/pagetypeinfo", "r");
	if (!fp)
		die("/proc/pagetypeinfo");
	{
		char types[8][32];
		unsigned long blocks[64][8] = { { 0 } };
		int ntypes = 0, node, maxnode = -1, t, used, in_table = 0;

		while (fgets(line, sizeof(line), fp)) {
			char *s = line;

			if (!strncmp(line, "Number of blocks type", 21)) {
				s += 21;
				ntypes = 0;
				while (ntypes < 8 &&
				       sscanf(s, "%31s%n", types[ntypes], &used) == 1) {
					ntypes++;
					s += used;
				}
				in_table = 1;
				continue;
			}
			if (!in_table)
				continue;
			if (sscanf(s, "Node %d, zone %*s%n", &node, &used) < 1 ||
			    node < 0 || node >= 64) {
				in_table = 0;
				continue;
			}
			s += used;
			for (t = 0; t < ntypes; t++) {
				unsigned long cnt;

				if (sscanf(s, "%lu%n", &cnt, &used) != 1)
					break;
				blocks[node][t] += cnt;
				s += used;
			}
			if (node > maxnode)
				maxnode = node;
		}
		if (maxnode < 0 || !ntypes)
			die("/proc/pagetypeinfo: no block counts");
		for (node = 0; node <= maxnode; node++)
			for (t = 0; t < ntypes; t++)
				printf("%s pageblocks %d %s %lu\n", phase, node,
				       types[t], blocks[node][t]);
	}
	fclose(fp);

	fp = fopen("/proc/vmstat", "r");
	if (!fp)
		die("/proc/vmstat");
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%127s %lu", name, &a) == 2 &&
		    (!strncmp(name, "compact_", 8) || !strncmp(name, "thp_", 4) ||
		     !strcmp(name, "pgsteal_kswapd") || !strcmp(name, "pgsteal_direct") ||
		     !strcmp(name, "slabs_scanned") ||
		     !strncmp(name, "slab_defrag_", 12)))
			printf("%s vmstat %s %lu\n", phase, name, a);
	}
	fclose(fp);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Cached path walks: what the dentry constructor of the series must not
 * slow down.  The paths are formatted once, so a timed pass is stat() and
 * nothing else; the tree is warm (every dentry and inode cached) before
 * the first timed pass.
 */
static void pathwalk(const char *dir, unsigned long ndirs, unsigned long nfiles,
		     unsigned long rounds)
{
	unsigned long npaths = ndirs * PW_SUBDIRS * nfiles, i, d, e, f, r;
	const size_t plen = strlen(dir) + 32;
	double *ns = calloc(rounds, sizeof(*ns));
	char *paths = malloc(npaths * plen);
	struct stat st;
	char p[4096];

	if (!ns || !paths)
		die("malloc");
	make_dir(dir);
	for (d = 0, i = 0; d < ndirs; d++) {
		snprintf(p, sizeof(p), "%s/d%03lu", dir, d);
		make_dir(p);
		for (e = 0; e < PW_SUBDIRS; e++) {
			snprintf(p, sizeof(p), "%s/d%03lu/e%lu", dir, d, e);
			make_dir(p);
			for (f = 0; f < nfiles; f++, i++) {
				char *q = paths + i * plen;
				int fd;

				snprintf(q, plen, "%s/d%03lu/e%lu/f%05lu", dir, d, e, f);
				if (!stat(q, &st))
					continue;
				if (errno != ENOENT)
					die("stat %s", q);
				fd = open(q, O_WRONLY | O_CREAT | O_EXCL, 0644);
				if (fd < 0 || close(fd))
					die("create %s", q);
			}
		}
	}
	for (i = 0; i < npaths; i++)
		if (stat(paths + i * plen, &st))
			die("stat %s", paths + i * plen);
	for (r = 0; r < rounds; r++) {
		double t0 = now();

		for (i = 0; i < npaths; i++)
			if (stat(paths + i * plen, &st))
				die("stat %s", paths + i * plen);
		ns[r] = (now() - t0) * 1e9 / npaths;
		printf("pathwalk round %lu ns_per_stat %.1f\n", r, ns[r]);
	}
	qsort(ns, rounds, sizeof(*ns), cmp_double);
	printf("pathwalk paths %lu median_ns_per_stat %.1f\n", npaths,
	       rounds % 2 ? ns[rounds / 2] : (ns[rounds / 2 - 1] + ns[rounds / 2]) / 2);
	free(paths);
	free(ns);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fsfrag populate DIR NFILES SEED | churn DIR NFILES SEED |\n"
		"              pressure | huge [PHASE] | record PHASE |\n"
		"              pathwalk DIR NDIRS NFILES ROUNDS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long nfiles = 0;

	if (argc < 2)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	phase = argv[1];
	if (!strcmp(argv[1], "populate") || !strcmp(argv[1], "churn")) {
		char *end;

		if (argc != 5)
			usage();
		nfiles = strtoul(argv[3], &end, 10);
		if (*end || nfiles < FILES_PER_DIR)
			usage();
		rng_seed(strtoull(argv[4], &end, 10));
		if (*end)
			usage();
		if (!strcmp(argv[1], "populate"))
			populate(argv[2], nfiles);
		else
			churn(argv[2], nfiles);
	} else if (!strcmp(argv[1], "pressure") && argc == 2) {
		pressure();
	} else if (!strcmp(argv[1], "huge") && (argc == 2 || argc == 3)) {
		if (argc == 3)
			phase = argv[2];
		huge();
	} else if (!strcmp(argv[1], "record") && argc == 3) {
		phase = argv[2];
		record();
	} else if (!strcmp(argv[1], "pathwalk") && argc == 6) {
		unsigned long n[3];
		char *end;
		int i;

		for (i = 0; i < 3; i++) {
			n[i] = strtoul(argv[3 + i], &end, 10);
			if (*end || !n[i] || n[i] > 100000)
				usage();
		}
		if (n[0] > 1000 || n[0] * PW_SUBDIRS * n[1] > 10000000)
			usage();
		pathwalk(argv[2], n[0], n[1], n[2]);
	} else {
		usage();
	}
	return 0;
}
