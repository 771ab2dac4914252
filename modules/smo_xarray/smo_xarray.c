// SPDX-License-Identifier: GPL-2.0
/*
 * smo_xarray - movable objects referenced from a movable XArray.
 *
 * The module keeps objects of its cache "smox_test" in an XArray created
 * with XA_FLAGS_MOVABLE, so that both the objects and the array's nodes
 * (in radix_tree_node_movable) can be moved by slab defragmentation, and an IDR
 * whose nodes (radix tree API, external lock) must never be moved.
 *
 *   /sys/kernel/debug/smo_xarray/callfn  (write, root) one command per write:
 *	populate N		store N new objects at the next N indices
 *	punch KEEP		keep one in KEEP of the stored objects
 *	verify			every index holds its own, intact object
 *	free			erase and free every object
 *	reader start|stop	a kthread walking the array under RCU
 *	idr_populate N		allocate N IDs in the IDR
 *	idr_punch KEEP		keep one in KEEP of the IDs
 *	idr_verify		every ID maps to its value
 *	barrier			wait for every pending RCU free (rcu_barrier)
 *   /sys/kernel/debug/smo_xarray/stats   (read, root) counters, and a census of
 *	the array: its nodes, and how many nodes and objects KFENCE holds (no
 *	slab counts those), for comparison with SLUB's own counts
 *
 * The reader checks every object it finds (reader_errors counts the wrong
 * ones) and counts the entries each pass visits.  A pass during which no
 * populate, punch or free ran (reader_checked) must have visited exactly
 * the objects the array held: moves of objects and of nodes replace what
 * they move and must never hide an entry from a reader.  reader_missed
 * counts the checked passes that saw another number; reader_moving the
 * checked passes during which objects moved, reader_retries the retry
 * entries the reader found (a node moved or shrunk under it).
 *
 * A failed command fails the write: -EINVAL for malformed input,
 * -EBADMSG when verification finds a lost or corrupted entry.
 *
 * Objects are freed through RCU because the reader may still look at an
 * object that was just replaced or erased.  smox_lock serialises commands
 * and the migrate callback; commands never hold it around slab calls that
 * may call back.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kfence.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "smo_cmd.h"

struct smox_object {
	unsigned long index;	/* where the object is stored in smox_xa */
	u32 check;		/* smox_checksum(index) */
	struct rcu_head rcu;
	char payload[40];
};

static struct kmem_cache *smox_cache;
/* index -> object; its nodes are movable */
static DEFINE_XARRAY_FLAGS(smox_xa, XA_FLAGS_MOVABLE);
/* object address / object size -> value(index): tells live from freed */
static DEFINE_XARRAY(smox_live);
static DEFINE_IDR(smox_idr);
static DEFINE_MUTEX(smox_lock);

static unsigned long smox_next_index, smox_nr_objects;
static unsigned long smox_moved, smox_migrate_failed, smox_skipped;
static unsigned long smox_idr_next, smox_idr_nr;
/* Odd while a command adds or removes entries, for the reader's count */
static unsigned long smox_changing;
static atomic_long_t smox_reader_passes, smox_reader_errors;
static atomic_long_t smox_reader_checked, smox_reader_missed;
static atomic_long_t smox_reader_moving, smox_reader_retries;
static struct task_struct *smox_reader;
static struct dentry *smox_debugfs;

static u32 smox_checksum(unsigned long index)
{
	return (u32)(index * 2246822519UL) ^ 0xa5a5a5a5;
}

static unsigned long smox_key(const void *obj)
{
	return (unsigned long)obj / kmem_cache_size(smox_cache);
}

static void smox_ctor(void *ptr)
{
	struct smox_object *so = ptr;

	so->index = ULONG_MAX;
	so->check = 0;
	memset(so->payload, 0, sizeof(so->payload));
}

static void smox_free_rcu(struct rcu_head *head)
{
	struct smox_object *so = container_of(head, struct smox_object, rcu);

	smox_ctor(so);
	kmem_cache_free(smox_cache, so);
}

/* Forget @so and free it after the readers; holds smox_lock */
static void smox_retire(struct smox_object *so)
{
	xa_erase(&smox_live, smox_key(so));
	call_rcu(&so->rcu, smox_free_rcu);
}

static void smox_fill(struct smox_object *so, unsigned long index)
{
	so->index = index;
	so->check = smox_checksum(index);
	memset(so->payload, (int)(index & 0xff), sizeof(so->payload));
}

static int smox_store_new(unsigned long index)
{
	struct smox_object *so;
	int err;

	so = kmem_cache_alloc(smox_cache, GFP_KERNEL);
	if (!so)
		return -ENOMEM;
	smox_fill(so, index);
	err = xa_err(xa_store(&smox_live, smox_key(so), xa_mk_value(index),
			      GFP_KERNEL));
	if (!err)
		err = xa_err(xa_store(&smox_xa, index, so, GFP_KERNEL));
	if (err) {
		xa_erase(&smox_live, smox_key(so));
		smox_ctor(so);
		kmem_cache_free(smox_cache, so);
		return err;
	}
	WRITE_ONCE(smox_nr_objects, smox_nr_objects + 1);
	return 0;
}

/*
 * migrate: move every object still stored to a copy on @nid.  The live
 * index answers "is this still ours, and at which index" without touching
 * objects that may already be freed.
 */
static void smox_migrate(struct kmem_cache *s, void **objs, int nr, int nid,
			 void *private)
{
	int i;

	mutex_lock(&smox_lock);
	for (i = 0; i < nr; i++) {
		struct smox_object *old = objs[i], *new;
		unsigned long index;
		void *entry;

		if (!old)
			continue;
		entry = xa_load(&smox_live, smox_key(old));
		if (!entry) {
			smox_skipped++;
			continue;
		}
		index = xa_to_value(entry);
		new = kmem_cache_alloc_node(s, GFP_KERNEL, nid);
		if (!new) {
			smox_migrate_failed++;
			continue;
		}
		*new = *old;
		if (xa_err(xa_store(&smox_live, smox_key(new), entry,
				    GFP_KERNEL))) {
			smox_ctor(new);
			kmem_cache_free(s, new);
			smox_migrate_failed++;
			continue;
		}
		/* Replacing a present entry allocates nothing */
		WARN_ON(xa_store(&smox_xa, index, new, GFP_KERNEL) != old);
		smox_retire(old);
		WRITE_ONCE(smox_moved, smox_moved + 1);
	}
	mutex_unlock(&smox_lock);
}

static int smox_verify(void)
{
	struct smox_object *so;
	unsigned long index, count = 0;
	int i;

	xa_for_each(&smox_xa, index, so) {
		if (so->index != index || so->check != smox_checksum(index)) {
			pr_err("index %lu holds a wrong or corrupted object\n",
			       index);
			return -EBADMSG;
		}
		for (i = 0; i < sizeof(so->payload); i++) {
			if (so->payload[i] != (char)(index & 0xff)) {
				pr_err("index %lu: payload corrupted\n", index);
				return -EBADMSG;
			}
		}
		if (xa_load(&smox_live, smox_key(so)) != xa_mk_value(index)) {
			pr_err("index %lu: object missing from the live index\n",
			       index);
			return -EBADMSG;
		}
		count++;
	}
	if (count != smox_nr_objects) {
		pr_err("%lu objects stored, %lu expected\n", count,
		       smox_nr_objects);
		return -EBADMSG;
	}
	return 0;
}

static void smox_erase(unsigned long index)
{
	struct smox_object *so = xa_erase(&smox_xa, index);

	if (so) {
		smox_retire(so);
		WRITE_ONCE(smox_nr_objects, smox_nr_objects - 1);
	}
}

static void smox_free_all(void)
{
	struct smox_object *so;
	unsigned long index;

	xa_for_each(&smox_xa, index, so)
		smox_erase(index);
}

/*
 * Commands that add or remove entries run between smox_change_begin() and
 * smox_change_end(), under smox_lock; the reader compares its count only
 * for passes that no such command overlapped (a seqcount without the
 * seqcount API, whose write side KCSAN would take as atomic).
 */
static void smox_change_begin(void)
{
	WRITE_ONCE(smox_changing, smox_changing + 1);
	smp_wmb();	/* odd before the first change */
}

static void smox_change_end(void)
{
	smp_wmb();	/* the changes before even */
	WRITE_ONCE(smox_changing, smox_changing + 1);
}

/*
 * One pass over the array under RCU with an xa_state kept across entries,
 * as RCU walkers such as the page cache's do: a node moved or shrunk under
 * the walk shows as retry entries, and the walk restarts at the same index.
 * Returns the entries visited.
 */
static unsigned long smox_reader_pass(void)
{
	XA_STATE(xas, &smox_xa, 0);
	struct smox_object *so;
	unsigned long seen = 0;

	rcu_read_lock();
	xas_for_each(&xas, so, ULONG_MAX) {
		if (xas_retry(&xas, so)) {
			atomic_long_inc(&smox_reader_retries);
			continue;
		}
		if (READ_ONCE(so->index) != xas.xa_index ||
		    READ_ONCE(so->check) != smox_checksum(xas.xa_index))
			atomic_long_inc(&smox_reader_errors);
		seen++;
	}
	rcu_read_unlock();
	return seen;
}

static int smox_reader_fn(void *unused)
{
	while (!kthread_should_stop()) {
		unsigned long changing, held, moved, seen;

		changing = READ_ONCE(smox_changing);
		smp_rmb();	/* the count after the sequence */
		held = READ_ONCE(smox_nr_objects);
		moved = READ_ONCE(smox_moved);
		seen = smox_reader_pass();
		smp_rmb();	/* the walk before the sequence */
		if (!(changing & 1) && READ_ONCE(smox_changing) == changing) {
			atomic_long_inc(&smox_reader_checked);
			if (READ_ONCE(smox_moved) != moved)
				atomic_long_inc(&smox_reader_moving);
			if (seen != held &&
			    atomic_long_inc_return(&smox_reader_missed) == 1)
				pr_err("reader pass saw %lu entries, the array held %lu\n",
				       seen, held);
		}
		atomic_long_inc(&smox_reader_passes);
		cond_resched();
	}
	return 0;
}

static int smox_idr_verify(void)
{
	unsigned long count = 0;
	void *entry;
	int id;

	idr_for_each_entry(&smox_idr, entry, id) {
		if (entry != xa_mk_value(id ^ 0x5a5a)) {
			pr_err("IDR id %d maps to %p\n", id, entry);
			return -EBADMSG;
		}
		count++;
	}
	if (count != smox_idr_nr) {
		pr_err("IDR holds %lu ids, %lu expected\n", count, smox_idr_nr);
		return -EBADMSG;
	}
	return 0;
}

static int smox_parse_ulong(const char *arg, unsigned long *val)
{
	if (!isdigit(*arg) || kstrtoul(arg, 10, val))
		return -EINVAL;
	return 0;
}

/* Commands run with smox_lock held */
static int smox_cmd_populate(int argc, const char **argv)
{
	unsigned long nr, i;
	int err = 0;

	if (smox_parse_ulong(argv[0], &nr) || !nr)
		return -EINVAL;
	smox_change_begin();
	for (i = 0; i < nr && !err; i++)
		err = smox_store_new(smox_next_index++);
	smox_change_end();
	return err;
}

static int smox_cmd_punch(int argc, const char **argv)
{
	struct smox_object *so;
	unsigned long keep, index, n = 0;

	if (smox_parse_ulong(argv[0], &keep) || !keep)
		return -EINVAL;
	smox_change_begin();
	xa_for_each(&smox_xa, index, so) {
		if (n++ % keep)
			smox_erase(index);
	}
	smox_change_end();
	return 0;
}

static int smox_cmd_verify(int argc, const char **argv)
{
	return smox_verify();
}

static int smox_cmd_free(int argc, const char **argv)
{
	smox_change_begin();
	smox_free_all();
	smox_change_end();
	return 0;
}

static int smox_cmd_reader(int argc, const char **argv)
{
	if (!strcmp(argv[0], "start")) {
		struct task_struct *t;

		if (smox_reader)
			return -EBUSY;
		t = kthread_run(smox_reader_fn, NULL, "smox_reader");
		if (IS_ERR(t))
			return PTR_ERR(t);
		smox_reader = t;
		return 0;
	}
	if (!strcmp(argv[0], "stop")) {
		if (!smox_reader)
			return -EINVAL;
		kthread_stop(smox_reader);
		smox_reader = NULL;
		return 0;
	}
	return -EINVAL;
}

static int smox_cmd_idr_populate(int argc, const char **argv)
{
	unsigned long nr, i;
	int id;

	if (smox_parse_ulong(argv[0], &nr) || !nr)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		id = idr_alloc(&smox_idr, xa_mk_value(smox_idr_next ^ 0x5a5a),
			       smox_idr_next, smox_idr_next + 1, GFP_KERNEL);
		if (id < 0)
			return id;
		smox_idr_next++;
		smox_idr_nr++;
	}
	return 0;
}

static int smox_cmd_idr_punch(int argc, const char **argv)
{
	unsigned long keep, n = 0;
	void *entry;
	int id;

	if (smox_parse_ulong(argv[0], &keep) || !keep)
		return -EINVAL;
	idr_for_each_entry(&smox_idr, entry, id) {
		if (n++ % keep) {
			idr_remove(&smox_idr, id);
			smox_idr_nr--;
		}
	}
	return 0;
}

static int smox_cmd_idr_verify(int argc, const char **argv)
{
	return smox_idr_verify();
}

static int smox_cmd_barrier(int argc, const char **argv)
{
	rcu_barrier();
	return 0;
}

/* Commands (smo_cmd.h), each run under smox_lock */
static const struct smo_cmd smox_commands[] = {
	{ "populate", 1, 1, smox_cmd_populate },
	{ "punch", 1, 1, smox_cmd_punch },
	{ "verify", 0, 0, smox_cmd_verify },
	{ "free", 0, 0, smox_cmd_free },
	{ "reader", 1, 1, smox_cmd_reader },
	{ "idr_populate", 1, 1, smox_cmd_idr_populate },
	{ "idr_punch", 1, 1, smox_cmd_idr_punch },
	{ "idr_verify", 0, 0, smox_cmd_idr_verify },
	{ "barrier", 0, 0, smox_cmd_barrier },
};

static ssize_t smox_callfn_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *off)
{
	return smo_cmd_write(smox_commands, ARRAY_SIZE(smox_commands),
			     &smox_lock, ubuf, len, off);
}

static const struct file_operations smox_callfn_fops = {
	.owner = THIS_MODULE,
	.write = smox_callfn_write,
	.llseek = noop_llseek,
};

/*
 * Count the nodes of smox_xa, and the nodes and objects of it that KFENCE
 * allocated.  A walk in index order enters each node once and visits its
 * whole subtree before it leaves, so a node is new when it differs from the
 * last node seen at its height; its ancestors are then new or already seen.
 */
static void smox_census(unsigned long *nodes, unsigned long *nodes_kfence,
			unsigned long *objs_kfence)
{
	struct xa_node *last[BITS_PER_LONG / XA_CHUNK_SHIFT + 1] = {};
	XA_STATE(xas, &smox_xa, 0);
	struct xa_node *node;
	void *entry;

	*nodes = 0;
	*nodes_kfence = 0;
	*objs_kfence = 0;
	xas_lock(&xas);
	xas_for_each(&xas, entry, ULONG_MAX) {
		*objs_kfence += is_kfence_address(entry);
		for (node = xas.xa_node; !xas_top(node);
		     node = xa_parent_locked(&smox_xa, node)) {
			unsigned int height = node->shift / XA_CHUNK_SHIFT;

			if (last[height] == node)
				break;
			last[height] = node;
			(*nodes)++;
			*nodes_kfence += is_kfence_address(node);
		}
	}
	xas_unlock(&xas);
}

static ssize_t smox_stats_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *off)
{
	unsigned long nodes, nodes_kfence, objs_kfence;
	char buf[512];
	int n;

	mutex_lock(&smox_lock);
	smox_census(&nodes, &nodes_kfence, &objs_kfence);
	n = scnprintf(buf, sizeof(buf),
		      "objects %lu\nmoved %lu\nmigrate_failed %lu\nskipped %lu\n"
		      "idr_ids %lu\nreader_passes %ld\nreader_errors %ld\n"
		      "reader_checked %ld\nreader_missed %ld\n"
		      "reader_moving %ld\nreader_retries %ld\n"
		      "nodes %lu\nnodes_kfence %lu\nkfence %lu\n",
		      smox_nr_objects, smox_moved, smox_migrate_failed,
		      smox_skipped, smox_idr_nr,
		      atomic_long_read(&smox_reader_passes),
		      atomic_long_read(&smox_reader_errors),
		      atomic_long_read(&smox_reader_checked),
		      atomic_long_read(&smox_reader_missed),
		      atomic_long_read(&smox_reader_moving),
		      atomic_long_read(&smox_reader_retries),
		      nodes, nodes_kfence, objs_kfence);
	mutex_unlock(&smox_lock);
	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct file_operations smox_stats_fops = {
	.owner = THIS_MODULE,
	.read = smox_stats_read,
	.llseek = default_llseek,
};

static int __init smox_init(void)
{
	struct kmem_cache_args args = {
		.ctor = smox_ctor,
		.migrate = smox_migrate,
	};

	smox_cache = kmem_cache_create("smox_test", sizeof(struct smox_object),
				       &args, 0);
	if (!smox_cache)
		return -ENOMEM;

	smox_debugfs = debugfs_create_dir("smo_xarray", NULL);
	debugfs_create_file("callfn", 0200, smox_debugfs, NULL,
			    &smox_callfn_fops);
	debugfs_create_file("stats", 0400, smox_debugfs, NULL,
			    &smox_stats_fops);
	return 0;
}
module_init(smox_init);

static void __exit smox_exit(void)
{
	debugfs_remove_recursive(smox_debugfs);
	mutex_lock(&smox_lock);
	if (smox_reader)
		kthread_stop(smox_reader);
	smox_free_all();
	idr_destroy(&smox_idr);
	mutex_unlock(&smox_lock);
	xa_destroy(&smox_xa);
	/*
	 * The objects' RCU callbacks must run before the cache goes, and a
	 * defragmentation pass that found a node of smox_xa under RCU must be
	 * done with the array before the module's memory goes.
	 */
	rcu_barrier();
	kmem_cache_destroy(smox_cache);
	xa_destroy(&smox_live);
}
module_exit(smox_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab Movable Objects: XArray test module");
MODULE_INFO(test, "Y");
