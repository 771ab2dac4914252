// SPDX-License-Identifier: GPL-2.0
/*
 * smo_test - exercise Slab Movable Objects through debugfs.
 *
 * The module owns the cache "smo_test" and keeps every object it allocates
 * on a list, in allocation order, so that userspace can punch holes into
 * chosen slabs and watch shrinking and kmem_defrag_slabs() empty them:
 *
 *   /sys/kernel/debug/smo_test/callfn  (write, root) one command per write:
 *	enable			make smo_test movable
 *	alloc N [NODE]		allocate N objects (on NODE)
 *	free N [POS]		free N objects from list position POS (N=0: all)
 *	punch KEEP [POS [CNT]]	keep one in KEEP of CNT objects from POS
 *	verify			check every object's id and checksum
 *	shrink			kmem_cache_shrink(smo_test)
 *	defrag NODE		kmem_defrag_slabs(NODE), -1 for all nodes
 *	stress SECS [THREADS]	THREADS (2..8, default 2) kthreads allocate,
 *				free and verify objects while another one
 *				loops shrink and kmem_defrag_slabs(-1)
 *				(-EINTR if a signal cuts the run short)
 *	failmig PERCENT		fail this share of the allocations inside
 *				migrate() (fault injection; 0 turns it off)
 *	noctor			try to make a cache without constructor
 *				movable (smo_test_noctor; must fail EINVAL)
 *	noctor_create SIZE	create a cache of SIZE bytes with migrate()
 *				but no constructor, mergeable: succeeds if
 *				kmem_cache_create() refuses it, -EBADMSG if
 *				it hands back a cache (an alias, for a size
 *				a cache already has, would never call back)
 *	typesafe		a SLAB_TYPESAFE_BY_RCU cache with constructor
 *				must not become movable: created with
 *				migrate() (refused) and made movable later
 *				(-EINVAL); -EBADMSG if either is accepted
 *	warn			fire a WARN() (tests the harness's log scan)
 *	hang SECS		sleep SECS (1..60) in D state (tests the
 *				harness's hung-task detection)
 *	lockup SECS		spin SECS (1..30) with preemption off (tests
 *				the soft-lockup detector and the log scan)
 *	race MS			a deliberate data race for MS (1..10000) ms:
 *				a kthread and the writer increment one counter
 *				with plain accesses (the canary of the KCSAN
 *				flavor: its report must fail the log check)
 *	lockorder		the deadlock the callbacks' contract forbids,
 *				staged without the race: a shrink runs the
 *				callbacks (which take smo_lock), then mobility
 *				is turned off with smo_lock held and on again
 *				(the canary of the debug kernel's lockdep:
 *				its report must fail the log check); -EAGAIN
 *				if the shrink called no callback
 *   /sys/kernel/debug/smo_test/result  (read, root) outcome of the last
 *				command
 *   /sys/kernel/debug/smo_test/stats   (read, root) object and migration
 *				counters; "kfence" counts the live objects KFENCE
 *				allocated: they are not in any slab, so
 *				/sys/kernel/slab/smo_test/objects misses them
 *
 * A failed command fails the write with an errno: -EINVAL for malformed
 * input, the error of the failing call otherwise, -EBADMSG when a check
 * finds a lost, duplicated or corrupted object.
 *
 * Locking: smo_lock protects the pools.  The isolate callback takes it and
 * the migrate callback releases it, so commands must not hold it around
 * kmem_cache_shrink(), kmem_defrag_slabs() or cache creation/destruction.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kfence.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "smo_cmd.h"

#define SMO_ID_NONE	(~0UL)
#define SMO_STRESS_THREADS_MAX	8
#define SMO_STRESS_SECS_MAX	3600
/* Objects per stress worker: enough to spread over many slabs */
#define SMO_STRESS_OBJECTS	4000

/* === Objects and pools =================================================== */

struct smo_object {
	struct list_head list;	/* pool->objects, in allocation order */
	unsigned long id;
	u32 check;		/* smo_checksum(id) while allocated */
	char payload[36];	/* copied on migration, sizes the object */
};

/* Counters kept per pool; read through the stats file for the main pool */
struct smo_stats {
	unsigned long moved;
	unsigned long migrate_failed;
	unsigned long isolate_skipped;
	unsigned long faults_injected;
};

/*
 * A cache and the objects allocated from it.  @live maps an object's
 * address (divided by the object size, which keeps it unique and dense) to
 * the object, so that the isolate callback can tell live objects from freed
 * ones without dereferencing a freed object.  @by_id maps an object's id to
 * the object, so that the stress workers find objects without walking the
 * list; migration keeps both indexes current.
 */
struct smo_pool {
	struct kmem_cache *cache;
	struct list_head objects;
	struct xarray live;
	struct xarray by_id;
	unsigned long nr_objects;
	unsigned long next_id;
	struct smo_stats stats;
};

static DEFINE_MUTEX(smo_lock);
static DEFINE_MUTEX(smo_noctor_lock);
/* Calls of smo_isolate(), under smo_lock (the lockorder command) */
static unsigned long smo_isolate_calls;
static struct smo_pool smo_main = {
	.objects = LIST_HEAD_INIT(smo_main.objects),
	.live = XARRAY_INIT(smo_main.live, 0),
	.by_id = XARRAY_INIT(smo_main.by_id, 0),
};

/* Share (percent) of the allocations in smo_migrate() made to fail */
static unsigned int smo_failmig_percent;

/* Outcome of the last command, for the result file */
static DEFINE_MUTEX(smo_result_lock);
static char smo_result[320];
static struct dentry *smo_debugfs;

static u32 smo_checksum(unsigned long id)
{
	return (u32)(id * 2654435761UL) ^ 0x5a5a5a5a;
}

static unsigned long smo_key(struct smo_pool *pool, const void *obj)
{
	return (unsigned long)obj / kmem_cache_size(pool->cache);
}

static void smo_object_ctor(void *ptr)
{
	struct smo_object *so = ptr;

	INIT_LIST_HEAD(&so->list);
	so->id = SMO_ID_NONE;
	so->check = 0;
	memset(so->payload, 0, sizeof(so->payload));
}

static struct smo_pool *smo_pool_of(struct kmem_cache *s)
{
	if (s == smo_main.cache)
		return &smo_main;
	return NULL;
}

/* Take an object out of the pool; caller holds smo_lock */
static void smo_unlink(struct smo_pool *pool, struct smo_object *so)
{
	xa_erase(&pool->live, smo_key(pool, so));
	xa_erase(&pool->by_id, so->id);
	list_del(&so->list);
	pool->nr_objects--;
}

/*
 * Free an unlinked object.  Freed objects must be in their constructed
 * state, because SLUB hands them out again without calling the constructor.
 */
static void smo_release(struct smo_pool *pool, struct smo_object *so)
{
	smo_object_ctor(so);
	kmem_cache_free(pool->cache, so);
}

/* Free an object the pool holds; caller holds smo_lock */
static void smo_free_one(struct smo_pool *pool, struct smo_object *so)
{
	smo_unlink(pool, so);
	smo_release(pool, so);
}

/*
 * Give a newly allocated object the next id and enter it in the pool.
 * Caller holds smo_lock; on error the caller frees the object.
 */
static int smo_insert(struct smo_pool *pool, struct smo_object *so)
{
	unsigned long key = smo_key(pool, so);
	int err;

	if (so->id != SMO_ID_NONE || !list_empty(&so->list)) {
		pr_err("object %p not in its constructed state\n", so);
		return -EBADMSG;
	}
	err = xa_err(xa_store(&pool->live, key, so, GFP_KERNEL));
	if (err)
		return err;
	err = xa_err(xa_store(&pool->by_id, pool->next_id, so, GFP_KERNEL));
	if (err) {
		xa_erase(&pool->live, key);
		return err;
	}
	so->id = pool->next_id++;
	so->check = smo_checksum(so->id);
	memset(so->payload, (int)(so->id & 0xff), sizeof(so->payload));
	list_add_tail(&so->list, &pool->objects);
	pool->nr_objects++;
	return 0;
}

/* Allocate an object on @node into @pool; caller holds smo_lock */
static int smo_alloc_one(struct smo_pool *pool, int node)
{
	struct smo_object *so;
	int err;

	so = kmem_cache_alloc_node(pool->cache, GFP_KERNEL, node);
	if (!so)
		return -ENOMEM;
	err = smo_insert(pool, so);
	if (err)
		kmem_cache_free(pool->cache, so);
	return err;
}

/* Whether @so carries the id, checksum and payload it was given */
static bool smo_object_intact(const struct smo_object *so)
{
	int i;

	if (so->check != smo_checksum(so->id))
		return false;
	for (i = 0; i < sizeof(so->payload); i++)
		if (so->payload[i] != (char)(so->id & 0xff))
			return false;
	return true;
}

/* === Mobility callbacks ================================================== */

/*
 * isolate: keep the objects the pool still holds and drop the others (freed
 * since the allocator built the vector).  Returns with smo_lock held, which
 * keeps every kept object alive until smo_migrate() releases it.
 */
static void *smo_isolate(struct kmem_cache *s, void **objs, int nr)
{
	struct smo_pool *pool;
	int i;

	mutex_lock(&smo_lock);
	smo_isolate_calls++;
	pool = smo_pool_of(s);
	for (i = 0; i < nr; i++) {
		if (!objs[i])
			continue;
		if (!pool || xa_load(&pool->live, smo_key(pool, objs[i])) != objs[i]) {
			objs[i] = NULL;
			if (pool)
				pool->stats.isolate_skipped++;
		}
	}
	return pool;
}

/*
 * migrate: replace every kept object by a copy allocated on @node, in the
 * same list position.  An object whose copy cannot be allocated or indexed
 * stays where it is.
 */
static void smo_migrate(struct kmem_cache *s, void **objs, int nr, int node,
			void *private)
{
	struct smo_pool *pool = private;
	int i;

	lockdep_assert_held(&smo_lock);

	for (i = 0; pool && i < nr; i++) {
		struct smo_object *old = objs[i], *new;

		if (!old)
			continue;
		if (smo_failmig_percent &&
		    get_random_u32_below(100) < smo_failmig_percent) {
			/* As if the allocation had failed */
			pool->stats.faults_injected++;
			pool->stats.migrate_failed++;
			continue;
		}
		new = kmem_cache_alloc_node(s, GFP_KERNEL, node);
		if (!new) {
			pool->stats.migrate_failed++;
			continue;
		}
		if (xa_err(xa_store(&pool->live, smo_key(pool, new), new,
				    GFP_KERNEL))) {
			kmem_cache_free(s, new);
			pool->stats.migrate_failed++;
			continue;
		}
		new->id = old->id;
		new->check = old->check;
		memcpy(new->payload, old->payload, sizeof(new->payload));
		/* Replacing an existing entry allocates nothing */
		xa_store(&pool->by_id, new->id, new, GFP_KERNEL);
		list_replace(&old->list, &new->list);

		xa_erase(&pool->live, smo_key(pool, old));
		smo_object_ctor(old);
		kmem_cache_free(s, old);
		pool->stats.moved++;
	}
	mutex_unlock(&smo_lock);
}

/* === Verification and freeing ============================================ */

/* Check every object of @pool; caller holds smo_lock */
/*
 * Let the CPU go every 4096 objects of a loop over a pool: a test fills
 * hundreds of megabytes, and a debug cache stores a stack trace for each
 * object (an RCU stall on the slub_debug pass).  The callers hold only
 * smo_lock, a mutex, so the list does not change meanwhile.
 */
static void smo_resched(unsigned long i)
{
	if (!(i % 4096))
		cond_resched();
}

static int smo_verify_pool(struct smo_pool *pool)
{
	unsigned long count = 0, prev = 0;
	struct smo_object *so;

	list_for_each_entry(so, &pool->objects, list) {
		if (count && so->id <= prev) {
			pr_err("id %lu after %lu: lost or duplicated object\n",
			       so->id, prev);
			return -EBADMSG;
		}
		if (so->id >= pool->next_id || !smo_object_intact(so)) {
			pr_err("object %p corrupted (id %lu)\n", so, so->id);
			return -EBADMSG;
		}
		if (xa_load(&pool->live, smo_key(pool, so)) != so ||
		    xa_load(&pool->by_id, so->id) != so) {
			pr_err("object id %lu missing from the index\n", so->id);
			return -EBADMSG;
		}
		prev = so->id;
		smo_resched(count++);
	}
	if (count != pool->nr_objects) {
		pr_err("%lu objects on the list, %lu expected\n", count,
		       pool->nr_objects);
		return -EBADMSG;
	}
	return 0;
}

/* Free @nr objects (0: all) from list position @pos; caller holds smo_lock */
static int smo_free_range(struct smo_pool *pool, unsigned long nr,
			  unsigned long pos, unsigned long *freed)
{
	struct smo_object *so, *tmp;
	unsigned long i = 0;

	*freed = 0;
	if (pos >= pool->nr_objects)
		return -EINVAL;
	list_for_each_entry_safe(so, tmp, &pool->objects, list) {
		smo_resched(i);
		if (i++ < pos)
			continue;
		smo_free_one(pool, so);
		if (++*freed == nr)
			break;
	}
	return 0;
}

/* Of @cnt objects from @pos keep the first of every @keep; holds smo_lock */
static int smo_punch(struct smo_pool *pool, unsigned long keep,
		     unsigned long pos, unsigned long cnt, unsigned long *freed)
{
	struct smo_object *so, *tmp;
	unsigned long i = 0;

	*freed = 0;
	if (!keep || (pool->nr_objects && pos >= pool->nr_objects))
		return -EINVAL;
	list_for_each_entry_safe(so, tmp, &pool->objects, list) {
		smo_resched(i);
		if (i < pos) {
			i++;
			continue;
		}
		if (i - pos >= cnt)
			break;
		if ((i - pos) % keep)
			smo_free_one(pool, so);
		i++;
	}
	*freed = i - pos - DIV_ROUND_UP(i - pos, keep);
	return 0;
}

static void smo_free_all(struct smo_pool *pool)
{
	unsigned long freed;

	mutex_lock(&smo_lock);
	if (pool->nr_objects)
		smo_free_range(pool, 0, 0, &freed);
	mutex_unlock(&smo_lock);
}

/* === Commands ============================================================ */

static void smo_set_result(const char *fmt, ...)
{
	va_list args;

	mutex_lock(&smo_result_lock);
	va_start(args, fmt);
	vscnprintf(smo_result, sizeof(smo_result), fmt, args);
	va_end(args);
	mutex_unlock(&smo_result_lock);
}

/* Commands (smo_cmd.h): argc counts the arguments after the command word */

static int smo_parse_ulong(const char *arg, unsigned long *val)
{
	/* kstrtoul() takes a sign; counts and positions have none */
	if (!isdigit(*arg))
		return -EINVAL;
	return kstrtoul(arg, 10, val) ? -EINVAL : 0;
}

static int smo_parse_node(const char *arg, int *node, bool any_ok)
{
	if (any_ok && !strcmp(arg, "-1")) {
		*node = NUMA_NO_NODE;
		return 0;
	}
	if (!isdigit(*arg) || kstrtoint(arg, 10, node))
		return -EINVAL;
	if (*node >= nr_node_ids || !node_online(*node))
		return -EINVAL;
	return 0;
}

static int smo_cmd_enable(int argc, const char **argv)
{
	int err = kmem_cache_setup_mobility(smo_main.cache, smo_isolate,
					    smo_migrate);

	smo_set_result("enable: %s %d\n", err ? "error" : "ok", err);
	return err;
}

static int smo_cmd_alloc(int argc, const char **argv)
{
	int node = NUMA_NO_NODE, err = 0;
	unsigned long nr, i;

	if (smo_parse_ulong(argv[0], &nr) || !nr)
		return -EINVAL;
	if (argc > 1 && smo_parse_node(argv[1], &node, true))
		return -EINVAL;

	mutex_lock(&smo_lock);
	for (i = 0; i < nr && !err; i++) {
		err = smo_alloc_one(&smo_main, node);
		smo_resched(i);
	}
	mutex_unlock(&smo_lock);
	if (err)
		i--;
	smo_set_result("alloc: %s %d allocated=%lu\n", err ? "error" : "ok",
		       err, i);
	return err;
}

static int smo_cmd_free(int argc, const char **argv)
{
	unsigned long nr, pos = 0, freed;
	int err;

	if (smo_parse_ulong(argv[0], &nr))
		return -EINVAL;
	if (argc > 1 && smo_parse_ulong(argv[1], &pos))
		return -EINVAL;

	mutex_lock(&smo_lock);
	err = smo_free_range(&smo_main, nr, pos, &freed);
	mutex_unlock(&smo_lock);
	smo_set_result("free: %s %d freed=%lu\n", err ? "error" : "ok", err,
		       freed);
	return err;
}

static int smo_cmd_punch(int argc, const char **argv)
{
	unsigned long keep, pos = 0, cnt = ULONG_MAX, freed;
	int err;

	if (smo_parse_ulong(argv[0], &keep) || !keep)
		return -EINVAL;
	if (argc > 1 && smo_parse_ulong(argv[1], &pos))
		return -EINVAL;
	if (argc > 2 && smo_parse_ulong(argv[2], &cnt))
		return -EINVAL;

	mutex_lock(&smo_lock);
	err = smo_punch(&smo_main, keep, pos, cnt, &freed);
	mutex_unlock(&smo_lock);
	smo_set_result("punch: %s %d freed=%lu\n", err ? "error" : "ok", err,
		       freed);
	return err;
}

static int smo_cmd_verify(int argc, const char **argv)
{
	int err;

	mutex_lock(&smo_lock);
	err = smo_verify_pool(&smo_main);
	smo_set_result("verify: %s %d objects=%lu\n", err ? "error" : "ok",
		       err, smo_main.nr_objects);
	mutex_unlock(&smo_lock);
	return err;
}

static int smo_cmd_shrink(int argc, const char **argv)
{
	int ret = kmem_cache_shrink(smo_main.cache);

	smo_set_result("shrink: ok %d\n", ret);
	return 0;
}

static int smo_cmd_defrag(int argc, const char **argv)
{
	long left;
	int node;

	if (smo_parse_node(argv[0], &node, true))
		return -EINVAL;
	left = kmem_defrag_slabs(node);
	if (left < 0) {
		smo_set_result("defrag: error %ld\n", left);
		return left;
	}
	smo_set_result("defrag: ok 0 left=%ld\n", left);
	return 0;
}

/* === Stress: workers and a compactor ===================================== */

/*
 * Stress: worker kthreads allocate, free and verify objects of the main
 * pool while a compactor kthread loops kmem_cache_shrink() and
 * kmem_defrag_slabs().  Workers allocate and free outside smo_lock, so
 * SLUB's own paths run concurrently with the isolation and putback of the
 * slabs being evacuated; only entering an object in the pool takes the
 * lock.
 */
struct smo_stress {
	atomic_long_t ops;
	atomic_long_t allocs;
	atomic_long_t frees;
	atomic_long_t verified;
	atomic_long_t corrupt;
	atomic_long_t alloc_failed;
	atomic_long_t shrinks;
	atomic_long_t defrags;
	unsigned long target;	/* objects the workers keep around */
};

static DEFINE_MUTEX(smo_stress_lock);

/* Any object of @pool, starting at a random id; caller holds smo_lock */
static struct smo_object *smo_pick(struct smo_pool *pool)
{
	unsigned long index;
	struct smo_object *so;

	if (!pool->nr_objects)
		return NULL;
	index = min_t(unsigned long, pool->next_id, U32_MAX);
	index = get_random_u32_below(index);
	so = xa_find(&pool->by_id, &index, ULONG_MAX, XA_PRESENT);
	if (!so) {
		index = 0;
		so = xa_find(&pool->by_id, &index, ULONG_MAX, XA_PRESENT);
	}
	return so;
}

static void smo_stress_alloc(struct smo_stress *st)
{
	struct smo_object *so;
	int err;

	so = kmem_cache_alloc(smo_main.cache, GFP_KERNEL);
	if (!so) {
		atomic_long_inc(&st->alloc_failed);
		return;
	}
	mutex_lock(&smo_lock);
	err = smo_insert(&smo_main, so);
	mutex_unlock(&smo_lock);
	if (err) {
		if (err == -EBADMSG)
			atomic_long_inc(&st->corrupt);
		else
			atomic_long_inc(&st->alloc_failed);
		kmem_cache_free(smo_main.cache, so);
		return;
	}
	atomic_long_inc(&st->allocs);
}

/* Count @so as corrupted unless its payload and its index entry hold */
static void smo_stress_check(struct smo_stress *st, struct smo_object *so)
{
	lockdep_assert_held(&smo_lock);
	if (smo_object_intact(so) &&
	    xa_load(&smo_main.live, smo_key(&smo_main, so)) == so)
		return;
	pr_err("stress: object id %lu corrupted\n", so->id);
	atomic_long_inc(&st->corrupt);
}

static void smo_stress_free(struct smo_stress *st)
{
	struct smo_object *so;

	mutex_lock(&smo_lock);
	so = smo_pick(&smo_main);
	if (so) {
		smo_stress_check(st, so);
		smo_unlink(&smo_main, so);
	}
	mutex_unlock(&smo_lock);
	if (so) {
		smo_release(&smo_main, so);
		atomic_long_inc(&st->frees);
	}
}

static void smo_stress_verify(struct smo_stress *st)
{
	struct smo_object *so;

	mutex_lock(&smo_lock);
	so = smo_pick(&smo_main);
	if (so) {
		smo_stress_check(st, so);
		atomic_long_inc(&st->verified);
	}
	mutex_unlock(&smo_lock);
}

/* Runs until kthread_stop(): the thread must not exit on its own */
static int smo_stress_worker(void *arg)
{
	struct smo_stress *st = arg;

	while (!kthread_should_stop()) {
		/* Drift around the target so that slabs fill and empty */
		u32 alloc_share = READ_ONCE(smo_main.nr_objects) < st->target ?
				  60 : 35;
		u32 op = get_random_u32_below(100);

		if (op < alloc_share)
			smo_stress_alloc(st);
		else if (op < 90)
			smo_stress_free(st);
		else
			smo_stress_verify(st);
		atomic_long_inc(&st->ops);
		cond_resched();
	}
	return 0;
}

static int smo_stress_compactor(void *arg)
{
	struct smo_stress *st = arg;

	while (!kthread_should_stop()) {
		kmem_cache_shrink(smo_main.cache);
		atomic_long_inc(&st->shrinks);
		if (kmem_defrag_slabs(NUMA_NO_NODE) >= 0)
			atomic_long_inc(&st->defrags);
		cond_resched();
	}
	return 0;
}

/* Count the entries of @xa; caller holds smo_lock */
static unsigned long smo_xa_count(struct xarray *xa)
{
	unsigned long index, count = 0;
	void *entry;

	xa_for_each(xa, index, entry)
		count++;
	return count;
}

/* Stop the first @nr of @tasks (NULL or error entries are skipped) */
static void smo_stop_threads(struct task_struct **tasks, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!IS_ERR_OR_NULL(tasks[i]))
			kthread_stop(tasks[i]);
}

static int smo_stress_run(unsigned long secs, unsigned long nr_workers)
{
	struct task_struct *tasks[SMO_STRESS_THREADS_MAX + 1] = {};
	unsigned long start_objects, start_moved, expected, listed, ids, keys;
	unsigned long end, lost = 0, moved;
	struct smo_object *so;
	struct smo_stress st;
	bool interrupted;
	char line[300];
	int err, i, n;

	memset(&st, 0, sizeof(st));
	st.target = nr_workers * SMO_STRESS_OBJECTS;
	err = kmem_cache_setup_mobility(smo_main.cache, smo_isolate,
					smo_migrate);
	if (err)
		return err;

	mutex_lock(&smo_lock);
	start_objects = smo_main.nr_objects;
	start_moved = smo_main.stats.moved;
	mutex_unlock(&smo_lock);

	for (i = 0; i <= nr_workers; i++) {
		tasks[i] = i < nr_workers ?
			   kthread_run(smo_stress_worker, &st, "smo_stress/%d", i) :
			   kthread_run(smo_stress_compactor, &st, "smo_compact");
		if (IS_ERR(tasks[i])) {
			err = PTR_ERR(tasks[i]);
			smo_stop_threads(tasks, i);
			return err;
		}
	}

	/*
	 * A signal (Ctrl-C on the writer, the harness's timeout) ends the run
	 * early, and the run then fails with -EINTR: a cut-short run is no
	 * evidence that nothing is lost under SECS seconds of stress.
	 */
	end = jiffies + secs * HZ;
	while (time_before(jiffies, end) && !signal_pending(current))
		msleep_interruptible(100);
	interrupted = signal_pending(current);
	smo_stop_threads(tasks, nr_workers + 1);

	/* Every object must still be there, intact, once in each index */
	mutex_lock(&smo_lock);
	expected = start_objects + atomic_long_read(&st.allocs) -
		   atomic_long_read(&st.frees);
	listed = 0;
	list_for_each_entry(so, &smo_main.objects, list) {
		if (!smo_object_intact(so))
			atomic_long_inc(&st.corrupt);
		listed++;
	}
	atomic_long_add(listed, &st.verified);
	ids = smo_xa_count(&smo_main.by_id);
	keys = smo_xa_count(&smo_main.live);
	if (smo_verify_pool(&smo_main))
		atomic_long_inc(&st.corrupt);
	lost = abs_diff(expected, listed) + abs_diff(expected, ids) +
	       abs_diff(expected, keys);
	moved = smo_main.stats.moved - start_moved;
	mutex_unlock(&smo_lock);

	err = lost || atomic_long_read(&st.corrupt) ? -EBADMSG : 0;
	if (!err && interrupted)
		err = -EINTR;
	n = scnprintf(line, sizeof(line), "stress: %s %d secs=%lu threads=%lu ",
		      err ? "fail" : "ok", err, secs, nr_workers);
	n += scnprintf(line + n, sizeof(line) - n,
		       "ops=%ld allocs=%ld frees=%ld verified=%ld moved=%lu ",
		       atomic_long_read(&st.ops), atomic_long_read(&st.allocs),
		       atomic_long_read(&st.frees),
		       atomic_long_read(&st.verified), moved);
	scnprintf(line + n, sizeof(line) - n,
		  "shrinks=%ld defrags=%ld alloc_failed=%ld live=%lu lost=%lu corrupt=%ld\n",
		  atomic_long_read(&st.shrinks), atomic_long_read(&st.defrags),
		  atomic_long_read(&st.alloc_failed), listed, lost,
		  atomic_long_read(&st.corrupt));
	smo_set_result("%s", line);
	return err;
}

static int smo_cmd_stress(int argc, const char **argv)
{
	unsigned long secs, nr_workers = 2;
	int err;

	if (smo_parse_ulong(argv[0], &secs) || !secs ||
	    secs > SMO_STRESS_SECS_MAX)
		return -EINVAL;
	if (argc > 1 && (smo_parse_ulong(argv[1], &nr_workers) ||
			 nr_workers < 2 ||
			 nr_workers > SMO_STRESS_THREADS_MAX))
		return -EINVAL;
	if (!mutex_trylock(&smo_stress_lock))
		return -EBUSY;
	err = smo_stress_run(secs, nr_workers);
	mutex_unlock(&smo_stress_lock);
	return err;
}

/* === Fault injection, refusals, splats =================================== */

static int smo_cmd_failmig(int argc, const char **argv)
{
	unsigned long percent;

	if (smo_parse_ulong(argv[0], &percent) || percent > 100)
		return -EINVAL;
	WRITE_ONCE(smo_failmig_percent, percent);
	smo_set_result("failmig: ok 0 percent=%lu\n", percent);
	return 0;
}

/* A cache without constructor, kept until unload so sysfs can be checked */
static struct kmem_cache *smo_noctor;

static int smo_cmd_noctor(int argc, const char **argv)
{
	int err;

	mutex_lock(&smo_noctor_lock);
	if (!smo_noctor)
		smo_noctor = kmem_cache_create("smo_test_noctor",
					       sizeof(struct smo_object), 0,
					       SLAB_NO_MERGE, NULL);
	err = smo_noctor ? kmem_cache_setup_mobility(smo_noctor, smo_isolate,
						     smo_migrate) : -ENOMEM;
	mutex_unlock(&smo_noctor_lock);
	smo_set_result("noctor: %s %d\n", err ? "error" : "ok", err);
	return err;
}

static int smo_cmd_noctor_create(int argc, const char **argv)
{
	struct kmem_cache_args args = {
		.isolate = smo_isolate,
		.migrate = smo_migrate,
	};
	struct kmem_cache *s;
	unsigned long size;
	int err;

	err = smo_parse_ulong(argv[0], &size);
	if (err || !size || size > PAGE_SIZE)
		return -EINVAL;
	s = kmem_cache_create("smo_test_noctor_create", size, &args, 0);
	if (!s) {
		smo_set_result("noctor_create: ok 0 refused\n");
		return 0;
	}
	kmem_cache_destroy(s);
	smo_set_result("noctor_create: error %d created\n", -EBADMSG);
	return -EBADMSG;
}

static int smo_cmd_typesafe(int argc, const char **argv)
{
	struct kmem_cache_args args = {
		.ctor = smo_object_ctor,
		.isolate = smo_isolate,
		.migrate = smo_migrate,
	};
	struct kmem_cache *s;
	bool created;
	int setup_err;

	s = kmem_cache_create("smo_test_typesafe", sizeof(struct smo_object),
			      &args, SLAB_TYPESAFE_BY_RCU);
	created = s;
	/* NULL, as it must be, when the cache was refused */
	kmem_cache_destroy(s);
	if (created) {
		smo_set_result("typesafe: error %d created movable\n", -EBADMSG);
		return -EBADMSG;
	}
	s = kmem_cache_create("smo_test_typesafe", sizeof(struct smo_object),
			      0, SLAB_TYPESAFE_BY_RCU, smo_object_ctor);
	if (!s)
		return -ENOMEM;
	setup_err = kmem_cache_setup_mobility(s, smo_isolate, smo_migrate);
	kmem_cache_destroy(s);
	if (!setup_err) {
		smo_set_result("typesafe: error %d made movable\n", -EBADMSG);
		return -EBADMSG;
	}
	smo_set_result("typesafe: ok 0 create=refused setup=%d\n", setup_err);
	return 0;
}

static int smo_cmd_hang(int argc, const char **argv)
{
	unsigned long secs;

	if (smo_parse_ulong(argv[0], &secs) || !secs || secs > 60)
		return -EINVAL;
	/* msleep() sleeps TASK_UNINTERRUPTIBLE: what the detector looks for */
	msleep(secs * MSEC_PER_SEC);
	smo_set_result("hang: ok 0\n");
	return 0;
}

static int smo_cmd_lockup(int argc, const char **argv)
{
	unsigned long secs, end;

	if (smo_parse_ulong(argv[0], &secs) || !secs || secs > 30)
		return -EINVAL;
	/* No schedule on this CPU for SECS: what the watchdog looks for */
	preempt_disable();
	end = jiffies + secs * HZ;
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
	smo_set_result("lockup: ok 0\n");
	return 0;
}

/*
 * The data race of the race command: plain read-modify-writes of one word
 * from two CPUs, which no lock orders.  Deliberate; nothing else uses it.
 */
static unsigned long smo_race_word;

static noinline void smo_race_step(void)
{
	smo_race_word++;
}

static void smo_race_loop(unsigned long end)
{
	unsigned long i = 0;

	while (time_before(jiffies, end)) {
		smo_race_step();
		if (!(++i % 1024))
			cond_resched();
	}
}

static int smo_race_thread(void *arg)
{
	smo_race_loop(*(unsigned long *)arg);
	/* Runs until kthread_stop(): the thread must not exit on its own */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int smo_cmd_race(int argc, const char **argv)
{
	struct task_struct *task;
	unsigned long ms, end;

	if (smo_parse_ulong(argv[0], &ms) || !ms || ms > 10000)
		return -EINVAL;
	end = jiffies + msecs_to_jiffies(ms);
	task = kthread_run(smo_race_thread, &end, "smo_race");
	if (IS_ERR(task))
		return PTR_ERR(task);
	smo_race_loop(end);
	kthread_stop(task);
	smo_set_result("race: ok 0\n");
	return 0;
}

static int smo_cmd_warn(int argc, const char **argv)
{
	WARN(1, "smo_test: WARN requested through callfn\n");
	smo_set_result("warn: ok 0\n");
	return 0;
}

/*
 * The canary of lockdep's view of the pass count (debug kernel): a shrink
 * teaches lockdep that a pass counted on smo_test takes smo_lock (in
 * smo_isolate()); turning mobility off with smo_lock held then waits, as
 * far as lockdep can tell, for a pass that needs smo_lock.  No pass runs
 * at that moment, so nothing hangs, but the order is the deadlock the
 * contract forbids and lockdep must report it.  Mobility is on afterwards.
 */
static int smo_cmd_lockorder(int argc, const char **argv)
{
	unsigned long calls;
	int err;

	mutex_lock(&smo_lock);
	calls = smo_isolate_calls;
	mutex_unlock(&smo_lock);
	kmem_cache_shrink(smo_main.cache);

	mutex_lock(&smo_lock);
	calls = smo_isolate_calls - calls;
	err = calls ? kmem_cache_setup_mobility(smo_main.cache, NULL, NULL) :
		      -EAGAIN;
	mutex_unlock(&smo_lock);
	if (calls)
		err = err ?: kmem_cache_setup_mobility(smo_main.cache,
						       smo_isolate, smo_migrate);
	smo_set_result("lockorder: %s %d isolate_calls=%lu\n",
		       err ? "error" : "ok", err, calls);
	return err;
}

/* === debugfs files ======================================================= */

static const struct smo_cmd smo_commands[] = {
	{ "enable", 0, 0, smo_cmd_enable },
	{ "alloc",  1, 2, smo_cmd_alloc },
	{ "free",   1, 2, smo_cmd_free },
	{ "punch",  1, 3, smo_cmd_punch },
	{ "verify", 0, 0, smo_cmd_verify },
	{ "shrink", 0, 0, smo_cmd_shrink },
	{ "defrag", 1, 1, smo_cmd_defrag },
	{ "stress", 1, 2, smo_cmd_stress },
	{ "failmig", 1, 1, smo_cmd_failmig },
	{ "noctor", 0, 0, smo_cmd_noctor },
	{ "noctor_create", 1, 1, smo_cmd_noctor_create },
	{ "typesafe", 0, 0, smo_cmd_typesafe },
	{ "warn",   0, 0, smo_cmd_warn },
	{ "hang",   1, 1, smo_cmd_hang },
	{ "lockup", 1, 1, smo_cmd_lockup },
	{ "race",   1, 1, smo_cmd_race },
	{ "lockorder", 0, 0, smo_cmd_lockorder },
};

static ssize_t smo_callfn_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *off)
{
	ssize_t ret = smo_cmd_write(smo_commands, ARRAY_SIZE(smo_commands),
				    NULL, ubuf, len, off);

	if (ret == -EINVAL)
		smo_set_result("error %d: malformed command\n", -EINVAL);
	return ret;
}

static const struct file_operations smo_callfn_fops = {
	.owner = THIS_MODULE,
	.write = smo_callfn_write,
	.llseek = noop_llseek,
};

static ssize_t smo_result_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *off)
{
	char buf[sizeof(smo_result)];

	mutex_lock(&smo_result_lock);
	strscpy(buf, smo_result, sizeof(buf));
	mutex_unlock(&smo_result_lock);
	return simple_read_from_buffer(ubuf, len, off, buf, strlen(buf));
}

static const struct file_operations smo_result_fops = {
	.owner = THIS_MODULE,
	.read = smo_result_read,
	.llseek = default_llseek,
};

static ssize_t smo_stats_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *off)
{
	unsigned long kfence = 0;
	struct smo_object *so;
	char buf[256];
	int n;

	mutex_lock(&smo_lock);
	list_for_each_entry(so, &smo_main.objects, list)
		kfence += is_kfence_address(so);
	n = scnprintf(buf, sizeof(buf),
		      "objects %lu\nmoved %lu\nmigrate_failed %lu\nisolate_skipped %lu\nfaults_injected %lu\nkfence %lu\n",
		      smo_main.nr_objects, smo_main.stats.moved,
		      smo_main.stats.migrate_failed,
		      smo_main.stats.isolate_skipped,
		      smo_main.stats.faults_injected, kfence);
	mutex_unlock(&smo_lock);
	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct file_operations smo_stats_fops = {
	.owner = THIS_MODULE,
	.read = smo_stats_read,
	.llseek = default_llseek,
};

/* === Module load and unload ============================================== */

static int __init smo_init(void)
{
	smo_main.cache = kmem_cache_create("smo_test", sizeof(struct smo_object),
					   0, 0, smo_object_ctor);
	if (!smo_main.cache)
		return -ENOMEM;

	smo_debugfs = debugfs_create_dir("smo_test", NULL);
	debugfs_create_file("callfn", 0200, smo_debugfs, NULL, &smo_callfn_fops);
	debugfs_create_file("result", 0400, smo_debugfs, NULL, &smo_result_fops);
	debugfs_create_file("stats", 0400, smo_debugfs, NULL, &smo_stats_fops);
	return 0;
}
module_init(smo_init);

/*
 * The guide's last step turns mobility off before the module goes, and so
 * does this module by default.  destroy_movable=1 leaves it on, so that
 * kmem_cache_destroy() itself must wait for passes still running on the
 * cache (reliability.bats).
 */
static bool smo_destroy_movable;
module_param_named(destroy_movable, smo_destroy_movable, bool, 0400);
MODULE_PARM_DESC(destroy_movable,
		 "destroy the cache at unload with mobility still on");

static void __exit smo_exit(void)
{
	debugfs_remove_recursive(smo_debugfs);
	if (!smo_destroy_movable)
		kmem_cache_setup_mobility(smo_main.cache, NULL, NULL);
	smo_free_all(&smo_main);
	kmem_cache_destroy(smo_main.cache);
	kmem_cache_destroy(smo_noctor);
	xa_destroy(&smo_main.live);
	xa_destroy(&smo_main.by_id);
}
module_exit(smo_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab Movable Objects test module");
MODULE_INFO(test, "Y");
