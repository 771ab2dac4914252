// SPDX-License-Identifier: GPL-2.0
/*
 * smo_bench - in-kernel measurements for the SMO benchmarks (bench/run).
 *
 * The module owns two caches of the same shape: "smo_bench_mov", created
 * movable (.isolate/.migrate in kmem_cache_args), and "smo_bench_fix", with
 * the same object size and constructor but no mobility, which is what a
 * cache gets from today's kernel.  Every figure that compares the two is
 * taken in the same boot, and every duration is measured with ktime in the
 * kernel, so that no guest shell or agent overhead ends up in it.
 *
 *   /sys/kernel/debug/smo_bench/callfn  (write, root) one command per write:
 *	frag N KEEP		both caches: free everything, allocate N objects
 *				split into one contiguous run per online node,
 *				then keep one in KEEP
 *	shrink mov|fix		kmem_cache_shrink() of one cache, timed
 *	release			free every object of both caches
 *	verify			check every live object of both caches: it
 *				sits at its slot and its checksum and payload
 *				are those it was allocated with (-EIO if not)
 *	migcost N KEEP REPS	per repetition: frag N KEEP, replace every live
 *				object of the fixed cache by an allocate +
 *				copy + free (timed), shrink the movable cache
 *				(timed), count the objects it moved and
 *				verify every live object of the movable cache
 *				(-EIO if one is lost or changed)
 *	hotpath REPS ROUNDS BATCH
 *				ROUNDS times allocate BATCH objects and free
 *				them, on one CPU, movable and fixed cache in
 *				alternating order per repetition
 *	remote REPS ROUNDS BATCH
 *				the same, allocating on the first online CPU
 *				and freeing on the second (two kthreads that
 *				take every sample)
 *	scan REPS CALLS EXTRA	median ns of a kmem_defrag_slabs(-1) call (and
 *				of a kmem_cache_walk_names() walk over all
 *				caches) with 0 and with EXTRA more caches that
 *				are not movable, alternating per repetition
 *   /sys/kernel/debug/smo_bench/result  (read, root) "key value..." lines
 *				written by the last command
 *
 * A failed command fails the write with an errno: -EINVAL for malformed
 * input, -ENODEV for "remote" on a single CPU, -EIO for "verify" finding a
 * lost or changed object, the error of the failing call otherwise.
 *
 * Locking: smob_cmd_lock serialises commands.  smob_lock protects the
 * object pools; the isolate callback takes it and the migrate callback
 * releases it, so no command holds it around kmem_cache_shrink().
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kasan.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "smo_cmd.h"

#define SMOB_RESULT_MAX		65536
#define SMOB_NO_SLOT		(~0UL)
#define SMOB_MAX_OBJECTS	2000000UL
#define SMOB_MAX_REPS		1024
#define SMOB_MAX_BATCH		4096
#define SMOB_MAX_EXTRA		1000
#define SMOB_MAX_CALLS		1000

/* === Objects and pools =================================================== */

/* 64 bytes, as smo_test's objects */
struct smob_object {
	unsigned long slot;	/* index in smob_pool.slots, or SMOB_NO_SLOT */
	u32 check;
	char payload[52];
};

/*
 * The objects allocated from one cache.  @slots holds every live object at
 * the slot the object records, so that the migrate callback can redirect
 * the one reference an object has with a single store.
 */
struct smob_pool {
	const char *name;
	struct kmem_cache *cache;
	struct smob_object **slots;
	unsigned long nr_slots;
	unsigned long live;
	unsigned long moved;
	unsigned long migrate_failed;
};

static DEFINE_MUTEX(smob_cmd_lock);
static DEFINE_MUTEX(smob_lock);
static struct smob_pool smob_mov = { .name = "mov" };
static struct smob_pool smob_fix = { .name = "fix" };
static struct dentry *smob_debugfs;

/* Output of the last command, for the result file; under smob_cmd_lock */
static char smob_result[SMOB_RESULT_MAX];
static size_t smob_result_len;

static __printf(1, 2) void smob_out(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	smob_result_len += vscnprintf(smob_result + smob_result_len,
				      sizeof(smob_result) - smob_result_len,
				      fmt, args);
	va_end(args);
}

static void smob_out_u64s(const char *key, const u64 *v, unsigned int nr)
{
	unsigned int i;

	smob_out("%s", key);
	for (i = 0; i < nr; i++)
		smob_out(" %llu", v[i]);
	smob_out("\n");
}

/* Room for @nr arrays of SMOB_MAX_REPS figures, one after the other */
static u64 *smob_reps_alloc(unsigned int nr)
{
	return kcalloc(nr * SMOB_MAX_REPS, sizeof(u64), GFP_KERNEL);
}

static u32 smob_checksum(unsigned long slot)
{
	return (u32)(slot * 2654435761UL) ^ 0x5a5a5a5a;
}

static void smob_ctor(void *ptr)
{
	struct smob_object *so = ptr;

	so->slot = SMOB_NO_SLOT;
	so->check = 0;
	memset(so->payload, 0, sizeof(so->payload));
}

/* === Mobility callbacks ================================================== */

/*
 * Is @so a live object of @pool?  Caller holds smob_lock.
 *
 * This reads the object, which may have been freed since SLUB built the
 * array: a command frees objects under smob_lock while a pass started
 * elsewhere (kmem_defrag_slabs(), a sysfs shrink) runs.  The read is sound:
 * the slab of every object handed to the isolate callback is isolated, so
 * the memory stays in place; registered objects only change and are only
 * freed under smob_lock; and an object that is not registered (freed, or
 * used by the hot-path loops, which never write to their objects) holds
 * SMOB_NO_SLOT from the constructor, or a sanitizer's poison, which is no
 * slot either.  A sanitizer would still report the read of a freed object
 * (KASAN did, when reliability.bats unloaded the module during passes), so
 * the look goes past it as the guide says: an untagged pointer and a read
 * KASAN does not check.  The alternative, an XArray index, would add two
 * XArray updates to every move and hide the allocator's own cost in the
 * migration figure.
 */
static bool smob_is_live(struct smob_pool *pool, struct smob_object *so)
{
	struct smob_object *raw = kasan_reset_tag(so);
	unsigned long slot = READ_ONCE_NOCHECK(raw->slot);

	return slot < pool->nr_slots && pool->slots[slot] == so;
}

/*
 * Replace @old by @new, which the caller allocated: the work an owner does
 * per object both in the migrate callback and in the copy baseline of
 * "migcost".  Caller holds smob_lock.
 */
static void smob_replace(struct smob_pool *pool, struct smob_object *old,
			 struct smob_object *new)
{
	memcpy(new, old, sizeof(*new));
	pool->slots[new->slot] = new;
	smob_ctor(old);
	kmem_cache_free(pool->cache, old);
}

static void *smob_isolate(struct kmem_cache *s, void **objs, int nr)
{
	struct smob_pool *pool = s == smob_mov.cache ? &smob_mov : NULL;
	int i;

	mutex_lock(&smob_lock);
	for (i = 0; i < nr; i++)
		if (objs[i] && (!pool || !smob_is_live(pool, objs[i])))
			objs[i] = NULL;
	return pool;
}

/* Move every object left in @objs to @node; releases smob_lock */
static void smob_migrate(struct kmem_cache *s, void **objs, int nr, int node,
			 void *private)
{
	struct smob_pool *pool = private;
	int i;

	lockdep_assert_held(&smob_lock);

	for (i = 0; pool && i < nr; i++) {
		struct smob_object *new;

		if (!objs[i])
			continue;
		new = kmem_cache_alloc_node(s, GFP_KERNEL, node);
		if (!new) {
			pool->migrate_failed++;
			continue;
		}
		smob_replace(pool, objs[i], new);
		pool->moved++;
	}
	mutex_unlock(&smob_lock);
}

/* === Filling and punching the pools ====================================== */

/* Free every object and the slot array of @pool; caller holds smob_lock */
static void smob_pool_release(struct smob_pool *pool)
{
	unsigned long i;

	for (i = 0; i < pool->nr_slots; i++) {
		struct smob_object *so = pool->slots[i];

		/* 20000 frees take over 20 s on a KASAN kernel under TCG */
		if (!(i % 1024))
			cond_resched();
		if (!so)
			continue;
		smob_ctor(so);
		kmem_cache_free(pool->cache, so);
	}
	kvfree(pool->slots);
	pool->slots = NULL;
	pool->nr_slots = 0;
	pool->live = 0;
}

static void smob_release_all(void)
{
	mutex_lock(&smob_lock);
	smob_pool_release(&smob_mov);
	smob_pool_release(&smob_fix);
	mutex_unlock(&smob_lock);
}

static int smob_alloc_slot(struct smob_pool *pool, unsigned long slot,
			   int node)
{
	struct smob_object *so;

	so = kmem_cache_alloc_node(pool->cache, GFP_KERNEL, node);
	if (!so)
		return -ENOMEM;
	so->slot = slot;
	so->check = smob_checksum(slot);
	memset(so->payload, (int)(slot & 0xff), sizeof(so->payload));
	pool->slots[slot] = so;
	pool->live++;
	return 0;
}

/* Keep the objects of every @keep-th slot; caller holds smob_lock */
static void smob_pool_punch(struct smob_pool *pool, unsigned long keep)
{
	unsigned long i;

	for (i = 0; i < pool->nr_slots; i++) {
		struct smob_object *so = pool->slots[i];

		/* As in smob_pool_release(): the soft-lockup detector watches */
		if (!(i % 1024))
			cond_resched();
		if (!so || !(i % keep))
			continue;
		pool->slots[i] = NULL;
		smob_ctor(so);
		kmem_cache_free(pool->cache, so);
		pool->live--;
	}
}

static void smob_out_live_per_node(struct smob_pool *pool)
{
	unsigned long *per_node;
	unsigned long i;
	int node;

	per_node = kcalloc(nr_node_ids, sizeof(*per_node), GFP_KERNEL);
	if (!per_node)
		return;
	for (i = 0; i < pool->nr_slots; i++)
		if (pool->slots[i])
			per_node[page_to_nid(virt_to_page(pool->slots[i]))]++;
	smob_out("%s_live %lu\n", pool->name, pool->live);
	for_each_online_node(node)
		smob_out("%s_live_N%d %lu\n", pool->name, node, per_node[node]);
	kfree(per_node);
}

/**
 * smob_frag() - Fragment the caches of @pools the same way.
 * @pools: The pools to fill, allocated from in lock step.
 * @nr_pools: Entries in @pools.
 * @nr: Objects to allocate per pool.
 * @keep: Keep one object in @keep.
 *
 * Empties each pool, then allocates @nr objects per pool, alternating
 * between the pools object by object so that their caches see the same
 * sequence; the objects form one contiguous run per online node, each
 * allocated on its node.  Then frees all but every @keep-th object.
 *
 * Context: Process context; takes smob_lock.
 * Return: 0, or -ENOMEM (the pools are then empty).
 */
static int smob_frag(struct smob_pool **pools, int nr_pools,
		     unsigned long nr, unsigned long keep)
{
	unsigned int nr_nodes = num_online_nodes(), run = 0;
	int node = first_online_node, j, err = 0;
	unsigned long i;

	mutex_lock(&smob_lock);
	for (j = 0; j < nr_pools; j++) {
		smob_pool_release(pools[j]);
		pools[j]->slots = kvcalloc(nr, sizeof(*pools[j]->slots),
					   GFP_KERNEL);
		if (!pools[j]->slots) {
			err = -ENOMEM;
			goto out;
		}
		pools[j]->nr_slots = nr;
	}
	for (i = 0; i < nr && !err; i++) {
		/* Slot i belongs to the run of the (i * nr_nodes / nr)-th node */
		for (; i * nr_nodes / nr > run; run++)
			node = next_online_node(node);
		for (j = 0; j < nr_pools && !err; j++)
			err = smob_alloc_slot(pools[j], i, node);
		if (!(i % 4096))
			cond_resched();
	}
	for (j = 0; j < nr_pools && !err; j++)
		smob_pool_punch(pools[j], keep);
out:
	if (err)
		for (j = 0; j < nr_pools; j++)
			smob_pool_release(pools[j]);
	mutex_unlock(&smob_lock);
	return err;
}

/* === Commands: defrag rows (frag, shrink, release, verify) =============== */

/* Commands: each takes its arguments as numbers (smob_run()) */
static int smob_cmd_frag(const unsigned long *args)
{
	struct smob_pool *pools[] = { &smob_mov, &smob_fix };
	int err;

	if (!args[0] || args[0] > SMOB_MAX_OBJECTS || !args[1])
		return -EINVAL;
	err = smob_frag(pools, ARRAY_SIZE(pools), args[0], args[1]);
	if (err)
		return err;
	mutex_lock(&smob_lock);
	smob_out_live_per_node(&smob_mov);
	smob_out_live_per_node(&smob_fix);
	mutex_unlock(&smob_lock);
	return 0;
}

static int smob_cmd_shrink(const unsigned long *args)
{
	struct smob_pool *pool = args[0] ? &smob_fix : &smob_mov;
	unsigned long moved;
	u64 t0, t1;

	mutex_lock(&smob_lock);
	moved = pool->moved;
	mutex_unlock(&smob_lock);
	t0 = ktime_get_ns();
	kmem_cache_shrink(pool->cache);
	t1 = ktime_get_ns();
	mutex_lock(&smob_lock);
	smob_out("shrink_ns %llu\nmoved %lu\nmigrate_failed %lu\n", t1 - t0,
		 pool->moved - moved, pool->migrate_failed);
	mutex_unlock(&smob_lock);
	return 0;
}

static int smob_cmd_release(const unsigned long *args)
{
	smob_release_all();
	return 0;
}

/* Is @so the intact object of @slot?  Caller holds smob_lock. */
static bool smob_object_intact(const struct smob_object *so,
			       unsigned long slot)
{
	if (so->slot != slot || so->check != smob_checksum(slot))
		return false;
	return !memchr_inv(so->payload, (int)(slot & 0xff),
			   sizeof(so->payload));
}

/*
 * Every move copies an object and redirects its slot, so a lost or
 * corrupted move shows as a slot whose object is not the one that was
 * allocated there, or as a live count that the slots do not add up to.
 * Counts the objects of @pool found in their slots in *@found and the
 * changed ones among them in *@bad; caller holds smob_lock.
 * Return: 0, or -EIO if an object is changed or missing.
 */
static int smob_verify_pool(struct smob_pool *pool, unsigned long *found,
			    unsigned long *bad)
{
	unsigned long i;

	*found = 0;
	*bad = 0;
	for (i = 0; i < pool->nr_slots; i++) {
		if (!pool->slots[i])
			continue;
		(*found)++;
		if (!smob_object_intact(pool->slots[i], i))
			(*bad)++;
	}
	return *bad || *found != pool->live ? -EIO : 0;
}

static int smob_cmd_verify(const unsigned long *args)
{
	struct smob_pool *pools[] = { &smob_mov, &smob_fix };
	unsigned long found, bad;
	int p, err = 0, ret;

	mutex_lock(&smob_lock);
	for (p = 0; p < ARRAY_SIZE(pools); p++) {
		struct smob_pool *pool = pools[p];

		ret = smob_verify_pool(pool, &found, &bad);
		smob_out("%s_verified %lu\n%s_corrupt %lu\n%s_lost %ld\n",
			 pool->name, found, pool->name, bad, pool->name,
			 (long)(pool->live - found));
		if (ret)
			err = ret;
	}
	mutex_unlock(&smob_lock);
	return err;
}

/* === Commands: migrate cost against a copy =============================== */

/*
 * The copy baseline: replace every live object of @pool by a copy on the
 * same node, as the migrate callback does, but through the plain allocator
 * calls.  Returns the number of objects copied; caller holds smob_lock.
 */
static unsigned long smob_copy_all(struct smob_pool *pool)
{
	unsigned long i, done = 0;

	for (i = 0; i < pool->nr_slots; i++) {
		struct smob_object *old = pool->slots[i], *new;

		if (!old)
			continue;
		new = kmem_cache_alloc_node(pool->cache, GFP_KERNEL,
					    page_to_nid(virt_to_page(old)));
		if (!new)
			break;
		smob_replace(pool, old, new);
		done++;
	}
	return done;
}

/**
 * smob_cmd_migcost() - Time moving objects by shrink against copying them.
 * @args: N objects, keep one in KEEP, REPS repetitions.
 *
 * Each repetition fragments both caches the same way, then times the copy
 * baseline over every live object of the fixed cache and
 * kmem_cache_shrink() of the movable cache, counting the objects its
 * migrate callback moved.  The baseline runs on the twin cache because it
 * compacts the cache it runs on (the copies fill the holes of the sparse
 * slabs one slab after the other), which would leave the shrink nothing
 * to move.  Prints per repetition the objects and ns of both, and the
 * objects of the movable cache found intact after the shrink ("verified":
 * every one of them, or the command fails with -EIO).
 *
 * Return: 0 or a negative errno.
 */
static int smob_cmd_migcost(const unsigned long *args)
{
	struct smob_pool *pools[] = { &smob_mov, &smob_fix };
	unsigned long r, reps = args[2], before;
	u64 *copy_ns, *shrink_ns, *copied, *moved, *verified, t0, t1;
	unsigned long found, bad;
	int err = 0;

	if (!args[0] || args[0] > SMOB_MAX_OBJECTS || !args[1] || !reps ||
	    reps > SMOB_MAX_REPS)
		return -EINVAL;
	copy_ns = smob_reps_alloc(5);
	if (!copy_ns)
		return -ENOMEM;
	shrink_ns = copy_ns + SMOB_MAX_REPS;
	copied = shrink_ns + SMOB_MAX_REPS;
	moved = copied + SMOB_MAX_REPS;
	verified = moved + SMOB_MAX_REPS;

	for (r = 0; r < reps; r++) {
		err = smob_frag(pools, ARRAY_SIZE(pools), args[0], args[1]);
		if (err)
			goto out;

		mutex_lock(&smob_lock);
		t0 = ktime_get_ns();
		copied[r] = smob_copy_all(&smob_fix);
		t1 = ktime_get_ns();
		copy_ns[r] = t1 - t0;
		before = smob_mov.moved;
		mutex_unlock(&smob_lock);

		t0 = ktime_get_ns();
		kmem_cache_shrink(smob_mov.cache);
		t1 = ktime_get_ns();
		shrink_ns[r] = t1 - t0;

		mutex_lock(&smob_lock);
		moved[r] = smob_mov.moved - before;
		/* the moved objects are checked here, before they are freed */
		err = smob_verify_pool(&smob_mov, &found, &bad);
		verified[r] = found - bad;
		mutex_unlock(&smob_lock);
		if (err) {
			smob_out("migcost: repetition %lu: %lu of %lu objects found, %lu changed\n",
				 r, found, smob_mov.live, bad);
			goto out;
		}
	}
	smob_release_all();

	smob_out_u64s("copied", copied, reps);
	smob_out_u64s("copy_ns", copy_ns, reps);
	smob_out_u64s("moved", moved, reps);
	smob_out_u64s("shrink_ns", shrink_ns, reps);
	smob_out_u64s("verified", verified, reps);
out:
	kfree(copy_ns);
	return err;
}

/* === Commands: allocation hot path ======================================= */

/* ROUNDS times: allocate BATCH objects from @cache, then free them */
static u64 smob_alloc_free_loop(struct kmem_cache *cache, void **objs,
				unsigned long rounds, unsigned long batch)
{
	unsigned long r, i;
	u64 t0;

	t0 = ktime_get_ns();
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < batch; i++)
			objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		for (i = 0; i < batch; i++)
			if (objs[i])
				kmem_cache_free(cache, objs[i]);
	}
	return ktime_get_ns() - t0;
}

/*
 * Check REPS ROUNDS BATCH, then give both caches the same starting state:
 * no objects, no slabs.
 */
static int smob_loop_prepare(const unsigned long *args)
{
	if (!args[0] || args[0] > SMOB_MAX_REPS || !args[1] || !args[2] ||
	    args[2] > SMOB_MAX_BATCH || args[1] > ULONG_MAX / args[2])
		return -EINVAL;
	smob_release_all();
	kmem_cache_shrink(smob_mov.cache);
	kmem_cache_shrink(smob_fix.cache);
	return 0;
}

/**
 * smob_cmd_hotpath() - Time allocate + free on one CPU, movable vs fixed.
 * @args: REPS repetitions of ROUNDS rounds of BATCH allocations and frees.
 *
 * Runs on the calling CPU with migration disabled.  Even repetitions time
 * the movable cache first, odd ones the fixed cache first, so that a drift
 * in the (noisy, emulated) machine's speed hits both alike.
 *
 * Return: 0 or a negative errno.
 */
static int smob_cmd_hotpath(const unsigned long *args)
{
	unsigned long r, reps = args[0], rounds = args[1], batch = args[2];
	u64 *mov_ns, *fix_ns;
	void **objs;

	if (smob_loop_prepare(args))
		return -EINVAL;
	objs = kmalloc_array(batch, sizeof(*objs), GFP_KERNEL);
	mov_ns = smob_reps_alloc(2);
	if (!objs || !mov_ns) {
		kfree(objs);
		kfree(mov_ns);
		return -ENOMEM;
	}
	fix_ns = mov_ns + SMOB_MAX_REPS;

	/* Warm up: both caches get their CPU slabs before timing starts */
	smob_alloc_free_loop(smob_mov.cache, objs, 1, batch);
	smob_alloc_free_loop(smob_fix.cache, objs, 1, batch);
	for (r = 0; r < reps; r++) {
		migrate_disable();
		if (r & 1) {
			fix_ns[r] = smob_alloc_free_loop(smob_fix.cache, objs,
							 rounds, batch);
			mov_ns[r] = smob_alloc_free_loop(smob_mov.cache, objs,
							 rounds, batch);
		} else {
			mov_ns[r] = smob_alloc_free_loop(smob_mov.cache, objs,
							 rounds, batch);
			fix_ns[r] = smob_alloc_free_loop(smob_fix.cache, objs,
							 rounds, batch);
		}
		migrate_enable();
		cond_resched();
	}
	kfree(objs);

	smob_out("pairs %lu\n", rounds * batch);
	smob_out_u64s("mov_ns", mov_ns, reps);
	smob_out_u64s("fix_ns", fix_ns, reps);
	kfree(mov_ns);
	return 0;
}

/* === Commands: remote frees ============================================== */

/*
 * Alloc on one CPU, free on another: the allocating kthread fills one of
 * two buffers while the freeing kthread empties the other.  One pair of
 * threads takes all samples, so that thread creation and first wake-ups
 * stay out of them; between samples the allocator waits until the freer has
 * emptied both buffers, so that each sample is timed from its first
 * allocation to its last free.
 */
struct smob_remote {
	struct kmem_cache *cache[2];	/* of the samples 2p and 2p + 1 */
	unsigned long samples, rounds, batch;
	void **buf[2];
	struct kmem_cache *buf_cache[2];
	struct completion full[2], empty[2], sample_done;
	struct completion alloc_done, free_done;
	u64 *start_ns, *end_ns;
};

/* Pair p times cache[0] then cache[1] when p is even, the reverse if odd */
static struct kmem_cache *smob_remote_cache(struct smob_remote *rm,
					    unsigned long sample)
{
	return rm->cache[(sample ^ (sample >> 1)) & 1];
}

static int smob_remote_alloc(void *arg)
{
	struct smob_remote *rm = arg;
	unsigned long s, r, i, n = 0;

	for (s = 0; s < rm->samples; s++) {
		struct kmem_cache *cache = smob_remote_cache(rm, s);

		if (s)
			wait_for_completion(&rm->sample_done);
		rm->start_ns[s] = ktime_get_ns();
		for (r = 0; r < rm->rounds; r++, n++) {
			void **buf = rm->buf[n & 1];

			wait_for_completion(&rm->empty[n & 1]);
			rm->buf_cache[n & 1] = cache;
			for (i = 0; i < rm->batch; i++)
				buf[i] = kmem_cache_alloc(cache, GFP_KERNEL);
			complete(&rm->full[n & 1]);
		}
	}
	/* The module must not go away while a thread still runs its code */
	kthread_complete_and_exit(&rm->alloc_done, 0);
}

static int smob_remote_free(void *arg)
{
	struct smob_remote *rm = arg;
	unsigned long s, r, i, n = 0;

	for (s = 0; s < rm->samples; s++) {
		for (r = 0; r < rm->rounds; r++, n++) {
			void **buf = rm->buf[n & 1];

			wait_for_completion(&rm->full[n & 1]);
			for (i = 0; i < rm->batch; i++)
				if (buf[i])
					kmem_cache_free(rm->buf_cache[n & 1],
							buf[i]);
			complete(&rm->empty[n & 1]);
		}
		rm->end_ns[s] = ktime_get_ns();
		complete(&rm->sample_done);
	}
	kthread_complete_and_exit(&rm->free_done, 0);
}

/**
 * smob_remote_run() - Timed samples of allocations freed on another CPU.
 * @rm: Parameters; buffers and time arrays allocated.
 * @cpu_alloc: The CPU that allocates.
 * @cpu_free: The CPU that frees.
 *
 * Return: 0 or the error of creating a thread.
 */
static int smob_remote_run(struct smob_remote *rm, int cpu_alloc,
			   int cpu_free)
{
	struct task_struct *ta, *tf;
	int i;

	for (i = 0; i < 2; i++) {
		init_completion(&rm->full[i]);
		init_completion(&rm->empty[i]);
		complete(&rm->empty[i]);
	}
	init_completion(&rm->sample_done);
	init_completion(&rm->alloc_done);
	init_completion(&rm->free_done);

	ta = kthread_create(smob_remote_alloc, rm, "smob_alloc");
	if (IS_ERR(ta))
		return PTR_ERR(ta);
	tf = kthread_create(smob_remote_free, rm, "smob_free");
	if (IS_ERR(tf)) {
		/* ta never ran: stopping it makes it exit before its function */
		kthread_stop(ta);
		return PTR_ERR(tf);
	}
	kthread_bind(ta, cpu_alloc);
	kthread_bind(tf, cpu_free);
	wake_up_process(tf);
	wake_up_process(ta);
	wait_for_completion(&rm->alloc_done);
	wait_for_completion(&rm->free_done);
	return 0;
}

static int smob_cmd_remote(const unsigned long *args)
{
	unsigned long s, reps = args[0];
	struct smob_remote *rm;
	u64 *mov_ns, *fix_ns;
	int cpu_a, cpu_b, err = 0;

	if (smob_loop_prepare(args))
		return -EINVAL;
	cpu_a = cpumask_first(cpu_online_mask);
	cpu_b = cpumask_next(cpu_a, cpu_online_mask);
	if (cpu_b >= nr_cpu_ids)
		return -ENODEV;

	rm = kzalloc(sizeof(*rm), GFP_KERNEL);
	/* start and end of 2 * reps samples, then the results */
	mov_ns = smob_reps_alloc(6);
	if (!rm || !mov_ns) {
		err = -ENOMEM;
		goto out;
	}
	fix_ns = mov_ns + SMOB_MAX_REPS;
	rm->start_ns = fix_ns + SMOB_MAX_REPS;
	rm->end_ns = rm->start_ns + 2 * SMOB_MAX_REPS;
	rm->cache[0] = smob_mov.cache;
	rm->cache[1] = smob_fix.cache;
	rm->samples = 2 * reps;
	rm->rounds = args[1];
	rm->batch = args[2];
	rm->buf[0] = kcalloc(2 * rm->batch, sizeof(void *), GFP_KERNEL);
	if (!rm->buf[0]) {
		err = -ENOMEM;
		goto out;
	}
	rm->buf[1] = rm->buf[0] + rm->batch;

	err = smob_remote_run(rm, cpu_a, cpu_b);
	if (err)
		goto out;
	for (s = 0; s < 2 * reps; s++) {
		u64 ns = rm->end_ns[s] - rm->start_ns[s];

		/* Sample s belongs to pair s / 2 */
		if (smob_remote_cache(rm, s) == smob_mov.cache)
			mov_ns[s / 2] = ns;
		else
			fix_ns[s / 2] = ns;
	}
	smob_out("pairs %lu\ncpus %d %d\n", args[1] * args[2], cpu_a, cpu_b);
	smob_out_u64s("mov_ns", mov_ns, reps);
	smob_out_u64s("fix_ns", fix_ns, reps);
out:
	if (rm)
		kfree(rm->buf[0]);
	kfree(rm);
	kfree(mov_ns);
	return err;
}

/* === Commands: the cost of the movable-cache walk ======================== */

static int smob_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int smob_walk_count(const char *name, bool movable, void *data)
{
	unsigned long *count = data;

	(*count)++;
	return 0;
}

/*
 * Median ns of @calls calls of kmem_defrag_slabs(-1), and (with @walk_ns)
 * of as many full walks over the cache list; the latter shows that the
 * extra caches are on the list that the first one does not walk.
 */
static void smob_time_scan(u64 *tmp, unsigned long calls, u64 *defrag_ns,
			   u64 *walk_ns, unsigned long *nr_caches)
{
	unsigned long i;
	u64 t0;

	/*
	 * Creating or destroying caches leaves work behind (RCU callbacks,
	 * sysfs releases, pages back to the allocator) that would otherwise
	 * run on the other vCPU during the first timed calls and slow them:
	 * finish it, then warm up with untimed calls.
	 */
	rcu_barrier();
	for (i = 0; i < calls; i++)
		kmem_defrag_slabs(NUMA_NO_NODE);

	for (i = 0; i < calls; i++) {
		t0 = ktime_get_ns();
		kmem_defrag_slabs(NUMA_NO_NODE);
		tmp[i] = ktime_get_ns() - t0;
	}
	sort(tmp, calls, sizeof(*tmp), smob_cmp_u64, NULL);
	*defrag_ns = tmp[calls / 2];

	*walk_ns = 0;
	*nr_caches = 0;
#ifdef CONFIG_NUMA
	for (i = 0; i < calls; i++) {
		struct kmem_cache_name_walk walk = {
			.fn = smob_walk_count,
			.data = nr_caches,
		};

		*nr_caches = 0;
		t0 = ktime_get_ns();
		kmem_cache_walk_names(&walk);
		tmp[i] = ktime_get_ns() - t0;
	}
	sort(tmp, calls, sizeof(*tmp), smob_cmp_u64, NULL);
	*walk_ns = tmp[calls / 2];
#endif
}

/**
 * smob_cmd_scan() - Time kmem_defrag_slabs(-1) with and without extra caches.
 * @args: REPS repetitions of CALLS timed calls, EXTRA caches.
 *
 * Each repetition times the calls with the caches that exist, creates
 * EXTRA caches that are not movable (SLAB_NO_MERGE, so that each is a list
 * entry of its own), times the calls again and destroys the caches; odd
 * repetitions time the two states in the opposite order.  The
 * movable caches are empty, so a call costs the walk and the flushes of
 * CPU slabs.
 *
 * Return: 0 or a negative errno.
 */
static int smob_cmd_scan(const unsigned long *args)
{
	u64 *base_ns, *extra_ns, *wbase_ns, *wextra_ns, *tmp;
	unsigned long reps = args[0], calls = args[1], extra = args[2];
	unsigned long r, i, n_base = 0, n_extra = 0;
	struct kmem_cache **caches;
	char name[32];
	int err = 0;

	if (!reps || reps > SMOB_MAX_REPS || !calls || calls > SMOB_MAX_CALLS ||
	    extra > SMOB_MAX_EXTRA)
		return -EINVAL;
	smob_release_all();
	tmp = kmalloc_array(calls, sizeof(*tmp), GFP_KERNEL);
	caches = kcalloc(extra ?: 1, sizeof(*caches), GFP_KERNEL);
	base_ns = smob_reps_alloc(4);
	if (!tmp || !caches || !base_ns) {
		err = -ENOMEM;
		goto out;
	}
	extra_ns = base_ns + SMOB_MAX_REPS;
	wbase_ns = extra_ns + SMOB_MAX_REPS;
	wextra_ns = wbase_ns + SMOB_MAX_REPS;

	for (r = 0; r < reps && !err; r++) {
		/*
		 * Odd repetitions time the state with the extra caches first:
		 * creating and destroying caches changes the timing of what
		 * follows a little (emulated TLBs), so that effect should not
		 * always fall on the same side.
		 */
		if (!(r & 1))
			smob_time_scan(tmp, calls, &base_ns[r], &wbase_ns[r],
				       &n_base);
		for (i = 0; i < extra; i++) {
			snprintf(name, sizeof(name), "smo_bench_x%lu", i);
			caches[i] = kmem_cache_create(name,
						      sizeof(struct smob_object),
						      0, SLAB_NO_MERGE, NULL);
			if (!caches[i]) {
				err = -ENOMEM;
				break;
			}
		}
		if (!err)
			smob_time_scan(tmp, calls, &extra_ns[r], &wextra_ns[r],
				       &n_extra);
		for (i = 0; i < extra && caches[i]; i++) {
			kmem_cache_destroy(caches[i]);
			caches[i] = NULL;
		}
		if ((r & 1) && !err)
			smob_time_scan(tmp, calls, &base_ns[r], &wbase_ns[r],
				       &n_base);
		cond_resched();
	}
	if (err)
		goto out;

	smob_out("caches %lu %lu\n", n_base, n_extra);
	smob_out_u64s("defrag_ns_0", base_ns, reps);
	smob_out_u64s("defrag_ns_extra", extra_ns, reps);
	smob_out_u64s("walk_ns_0", wbase_ns, reps);
	smob_out_u64s("walk_ns_extra", wextra_ns, reps);
out:
	kfree(base_ns);
	kfree(caches);
	kfree(tmp);
	return err;
}

/* === The callfn file ===================================================== */

static int smob_parse_ulong(const char *arg, unsigned long *val)
{
	/* kstrtoul() takes a sign; counts have none */
	if (!isdigit(*arg))
		return -EINVAL;
	return kstrtoul(arg, 10, val) ? -EINVAL : 0;
}

/*
 * Run @fn with @argv as numbers, "mov" or "fix" (1) as the first one when
 * @first_is_word; with the result cleared first, under smob_cmd_lock.
 */
static int smob_run(int argc, const char **argv, bool first_is_word,
		    int (*fn)(const unsigned long *args))
{
	unsigned long args[SMO_CMD_MAX_ARGS] = { 0 };
	int i, err;

	for (i = 0; i < argc; i++) {
		if (!i && first_is_word) {
			if (strcmp(argv[0], "mov") && strcmp(argv[0], "fix"))
				return -EINVAL;
			args[0] = !strcmp(argv[0], "fix");
		} else if (smob_parse_ulong(argv[i], &args[i])) {
			return -EINVAL;
		}
	}

	mutex_lock(&smob_cmd_lock);
	smob_result_len = 0;
	smob_result[0] = '\0';
	err = fn(args);
	if (err)
		smob_out("error %d\n", err);
	mutex_unlock(&smob_cmd_lock);
	return err;
}

static int smob_run_frag(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_frag);
}

static int smob_run_shrink(int argc, const char **argv)
{
	return smob_run(argc, argv, true, smob_cmd_shrink);
}

static int smob_run_release(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_release);
}

static int smob_run_verify(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_verify);
}

static int smob_run_migcost(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_migcost);
}

static int smob_run_hotpath(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_hotpath);
}

static int smob_run_remote(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_remote);
}

static int smob_run_scan(int argc, const char **argv)
{
	return smob_run(argc, argv, false, smob_cmd_scan);
}

/* The commands of callfn (smo_cmd.h) */
static const struct smo_cmd smob_commands[] = {
	{ "frag", 2, 2, smob_run_frag },
	{ "shrink", 1, 1, smob_run_shrink },
	{ "release", 0, 0, smob_run_release },
	{ "verify", 0, 0, smob_run_verify },
	{ "migcost", 3, 3, smob_run_migcost },
	{ "hotpath", 3, 3, smob_run_hotpath },
	{ "remote", 3, 3, smob_run_remote },
	{ "scan", 3, 3, smob_run_scan },
};

static ssize_t smob_callfn_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *off)
{
	return smo_cmd_write(smob_commands, ARRAY_SIZE(smob_commands), NULL,
			     ubuf, len, off);
}

static const struct file_operations smob_callfn_fops = {
	.owner = THIS_MODULE,
	.write = smob_callfn_write,
	.llseek = noop_llseek,
};

/* === The result file ===================================================== */

static ssize_t smob_result_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *off)
{
	ssize_t ret;

	mutex_lock(&smob_cmd_lock);
	ret = simple_read_from_buffer(ubuf, len, off, smob_result,
				      smob_result_len);
	mutex_unlock(&smob_cmd_lock);
	return ret;
}

static const struct file_operations smob_result_fops = {
	.owner = THIS_MODULE,
	.read = smob_result_read,
	.llseek = default_llseek,
};

/* === Module load and unload ============================================== */

static int __init smob_init(void)
{
	struct kmem_cache_args args = {
		.ctor = smob_ctor,
		.isolate = smob_isolate,
		.migrate = smob_migrate,
	};

	smob_mov.cache = kmem_cache_create("smo_bench_mov",
					   sizeof(struct smob_object), &args, 0);
	if (!smob_mov.cache)
		return -ENOMEM;
	/* The same shape without mobility: what today's kernel gives */
	smob_fix.cache = kmem_cache_create("smo_bench_fix",
					   sizeof(struct smob_object), 0, 0,
					   smob_ctor);
	if (!smob_fix.cache) {
		kmem_cache_destroy(smob_mov.cache);
		return -ENOMEM;
	}

	smob_debugfs = debugfs_create_dir("smo_bench", NULL);
	debugfs_create_file("callfn", 0200, smob_debugfs, NULL,
			    &smob_callfn_fops);
	debugfs_create_file("result", 0400, smob_debugfs, NULL,
			    &smob_result_fops);
	return 0;
}
module_init(smob_init);

static void __exit smob_exit(void)
{
	debugfs_remove_recursive(smob_debugfs);
	/* No pass may call the callbacks once the module text is gone */
	kmem_cache_setup_mobility(smob_mov.cache, NULL, NULL);
	smob_release_all();
	kmem_cache_destroy(smob_fix.cache);
	kmem_cache_destroy(smob_mov.cache);
}
module_exit(smob_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab Movable Objects: in-kernel benchmark helper");
/* Taints the kernel with TAINT_TEST: for test kernels, not for users */
MODULE_INFO(test, "Y");
