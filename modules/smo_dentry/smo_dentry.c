// SPDX-License-Identifier: GPL-2.0
/*
 * smo_dentry - targeted reclaim of dentries through slab defragmentation.
 *
 * Loading the module makes the dentry cache movable: when it is shrunk
 * (/sys/kernel/slab/dentry/shrink, slabinfo dentry -s) or kmem_defrag_slabs()
 * runs, SLUB hands the dentries of each sparse slab to this module, which
 * evicts the unused ones so that the slab can be freed.  Dentries cannot be
 * moved, only dropped; in-use dentries, mount points and the dentries of
 * filesystems that live in the dcache (ramfs, tmpfs, ...) stay.  Unloading
 * makes the cache not movable again, with nothing left pinned.
 *
 *   /sys/kernel/debug/smo_dentry/stats  (read, root) counters:
 *	candidates	objects handed to the isolate callback
 *	taken		unused dentries taken for eviction
 *	evicted		taken dentries killed
 *	raced		taken dentries left alone: taken into use (or killed
 *			by someone else) before the eviction reached them
 *	returned	taken dentries given back (superblock busy)
 *	skip_not_cached	free, being set up, or unhashed
 *	skip_in_use	dentries with references
 *	skip_busy	mount points, dentries on another shrink list
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

struct smod_stats {
	unsigned long candidates;
	unsigned long taken;
	unsigned long evicted;
	unsigned long raced;
	unsigned long returned;
	unsigned long skip_not_cached;
	unsigned long skip_in_use;
	unsigned long skip_busy;
};

static DEFINE_SPINLOCK(smod_stats_lock);
static struct smod_stats smod_stats;
static struct dentry *smod_debugfs;

/* One isolate/migrate round: the list of taken dentries */
struct smod_batch {
	struct list_head dispose;
};

/*
 * isolate: take the unused dentries onto a private list, drop every other
 * object from the vector.  The list travels to migrate in @private.
 */
static void *smod_isolate(struct kmem_cache *s, void **objs, int nr)
{
	struct smod_stats counted = {};
	struct smod_batch *batch;
	int i;

	batch = kmalloc(sizeof(*batch), GFP_KERNEL);
	if (!batch) {
		for (i = 0; i < nr; i++)
			objs[i] = NULL;
		return NULL;
	}
	INIT_LIST_HEAD(&batch->dispose);

	for (i = 0; i < nr; i++) {
		if (!objs[i])
			continue;
		counted.candidates++;
		switch (d_defrag_isolate(objs[i], &batch->dispose)) {
		case D_DEFRAG_TAKEN:
			counted.taken++;
			continue;
		case D_DEFRAG_NOT_CACHED:
			counted.skip_not_cached++;
			break;
		case D_DEFRAG_IN_USE:
			counted.skip_in_use++;
			break;
		case D_DEFRAG_BUSY:
			counted.skip_busy++;
			break;
		}
		objs[i] = NULL;
	}

	spin_lock(&smod_stats_lock);
	smod_stats.candidates += counted.candidates;
	smod_stats.taken += counted.taken;
	smod_stats.skip_not_cached += counted.skip_not_cached;
	smod_stats.skip_in_use += counted.skip_in_use;
	smod_stats.skip_busy += counted.skip_busy;
	spin_unlock(&smod_stats_lock);
	return batch;
}

/* migrate: evict what isolate took; dentries are never copied */
static void smod_migrate(struct kmem_cache *s, void **objs, int nr, int node,
			 void *private)
{
	struct smod_batch *batch = private;
	struct d_defrag_stats ds = {};

	if (!batch)
		return;
	d_defrag_evict(&batch->dispose, &ds);
	kfree(batch);

	spin_lock(&smod_stats_lock);
	smod_stats.evicted += ds.evicted;
	smod_stats.raced += ds.raced;
	smod_stats.returned += ds.returned;
	spin_unlock(&smod_stats_lock);
}

static int smod_stats_show(struct seq_file *m, void *unused)
{
	struct smod_stats st;

	spin_lock(&smod_stats_lock);
	st = smod_stats;
	spin_unlock(&smod_stats_lock);

	seq_printf(m, "candidates %lu\ntaken %lu\nevicted %lu\nraced %lu\nreturned %lu\n",
		   st.candidates, st.taken, st.evicted, st.raced, st.returned);
	seq_printf(m, "skip_not_cached %lu\nskip_in_use %lu\nskip_busy %lu\n",
		   st.skip_not_cached, st.skip_in_use, st.skip_busy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smod_stats);

static int __init smod_init(void)
{
	int err = d_setup_mobility(smod_isolate, smod_migrate);

	if (err) {
		pr_err("cannot make the dentry cache movable: %d\n", err);
		return err;
	}
	smod_debugfs = debugfs_create_dir("smo_dentry", NULL);
	debugfs_create_file("stats", 0400, smod_debugfs, NULL,
			    &smod_stats_fops);
	return 0;
}
module_init(smod_init);

static void __exit smod_exit(void)
{
	debugfs_remove_recursive(smod_debugfs);
	/* Returns once no defragmentation pass runs our callbacks */
	d_setup_mobility(NULL, NULL);
}
module_exit(smod_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab Movable Objects: targeted reclaim of dentries");
