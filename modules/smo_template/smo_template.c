// SPDX-License-Identifier: GPL-2.0
/*
 * smo_template - the smallest complete movable slab cache.
 *
 * Copy this directory, rename "smo_template"/"tmpl" and replace struct
 * tmpl_object by your object.  Everything a movable cache needs is here:
 *
 *   1. a constructor, so that every object is always in a defined state;
 *   2. an index of live objects (tmpl_live) that tells a live object from a
 *      freed one without dereferencing it;
 *   3. tmpl_isolate(), which drops freed objects and pins the others by
 *      taking tmpl_lock;
 *   4. tmpl_migrate(), which copies each object to a new one allocated on
 *      the requested node, redirects the references and frees the old one;
 *   5. registration: the callbacks are passed in struct kmem_cache_args, so
 *      the cache is movable from its first object.
 *
 * /sys/kernel/debug/smo_template/control (root only) takes one command per
 * write and, when read, prints the counters ("kfence" counts the live
 * objects KFENCE allocated: no slab holds them, so SLUB never moves them and
 * /sys/kernel/slab/smo_template/objects does not count them):
 *	alloc N [NODE]	allocate N objects (on NODE)
 *	keep-every K	free all objects but every K-th one (punch holes)
 *	free-all	free every object
 *	shrink		kmem_cache_shrink(): moves objects out of sparse slabs
 *	verify		check that every object's payload survived its moves
 * A malformed command (a NUL inside the write included) fails with -EINVAL,
 * verify with -EBADMSG.
 *
 * Locking: tmpl_lock protects the list, the index and the counters.
 * tmpl_isolate() takes it and tmpl_migrate() releases it, so nothing may
 * hold it while calling kmem_cache_shrink(), kmem_defrag_slabs() or while
 * creating or destroying a cache.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kfence.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

/* The object.  Every reference to it must be known to its owner. */
struct tmpl_object {
	struct list_head list;	/* on tmpl_objects; the only reference */
	unsigned long id;	/* 0 in the constructed state */
	u8 payload[48];		/* what must survive a move */
};

static struct kmem_cache *tmpl_cache;
static DEFINE_MUTEX(tmpl_lock);
static LIST_HEAD(tmpl_objects);		/* live objects, under tmpl_lock */
static DEFINE_XARRAY(tmpl_live);	/* index of live objects */
static unsigned long tmpl_nr, tmpl_next_id = 1;
static unsigned long tmpl_moved, tmpl_migrate_failed, tmpl_skipped;
static struct dentry *tmpl_dir;

/* The payload is a function of the id, so verify can check it */
static u8 tmpl_byte(unsigned long id, int i)
{
	return (u8)(id * 31 + i * 7);
}

/*
 * Index key: distinct objects are at least one object size apart, so the
 * address divided by the size is unique and keeps the XArray dense.
 */
static unsigned long tmpl_key(const void *obj)
{
	return (unsigned long)obj / kmem_cache_size(tmpl_cache);
}

/*
 * The constructor runs once per object when SLUB creates a slab, not on
 * every allocation.  The callbacks may see any allocated object, so objects
 * are put back into this state before they are freed (tmpl_free_one(),
 * tmpl_migrate()).
 */
static void tmpl_ctor(void *ptr)
{
	struct tmpl_object *obj = ptr;

	INIT_LIST_HEAD(&obj->list);
	obj->id = 0;
	memset(obj->payload, 0, sizeof(obj->payload));
}

/* Caller holds tmpl_lock */
static int tmpl_alloc_one(int node)
{
	struct tmpl_object *obj;
	int i, err;

	obj = kmem_cache_alloc_node(tmpl_cache, GFP_KERNEL, node);
	if (!obj)
		return -ENOMEM;
	obj->id = tmpl_next_id++;
	for (i = 0; i < sizeof(obj->payload); i++)
		obj->payload[i] = tmpl_byte(obj->id, i);
	/* Indexed only once it is set up: until then it is not moved */
	err = xa_err(xa_store(&tmpl_live, tmpl_key(obj), obj, GFP_KERNEL));
	if (err) {
		tmpl_ctor(obj);
		kmem_cache_free(tmpl_cache, obj);
		return err;
	}
	list_add_tail(&obj->list, &tmpl_objects);
	tmpl_nr++;
	return 0;
}

/* Caller holds tmpl_lock */
static void tmpl_free_one(struct tmpl_object *obj)
{
	/* Out of the index first: isolate() then drops it */
	xa_erase(&tmpl_live, tmpl_key(obj));
	list_del(&obj->list);
	tmpl_ctor(obj);
	kmem_cache_free(tmpl_cache, obj);
	tmpl_nr--;
}

/**
 * tmpl_isolate() - Pin the live objects of one slab before they are moved.
 * @s: tmpl_cache.
 * @objs: The objects of one slab that were allocated when SLUB built the
 *        array; some may have been freed since, or are being freed now.
 * @nr: Number of entries in @objs.
 *
 * Sets to %NULL every entry that the index does not map to the same
 * pointer: such an object was freed after SLUB built the array.  The
 * entries are compared as pointers and never dereferenced, because a freed
 * object may be poisoned.  Holding tmpl_lock pins the others: no command
 * can free or change an object while it is held.  The lock is held when
 * this function returns and tmpl_migrate() releases it.
 *
 * Context: Process context, may sleep; no allocator lock, slab_mutex or
 * CPU hotplug lock is held.  It must not turn mobility off for its own
 * cache or destroy it: both wait for the passes on the cache, this one too.
 * Return: %NULL, passed to tmpl_migrate() as @private.
 */
static void *tmpl_isolate(struct kmem_cache *s, void **objs, int nr)
	__acquires(&tmpl_lock)
{
	int i;

	mutex_lock(&tmpl_lock);
	for (i = 0; i < nr; i++) {
		if (objs[i] && xa_load(&tmpl_live, tmpl_key(objs[i])) != objs[i]) {
			objs[i] = NULL;
			tmpl_skipped++;
		}
	}
	return NULL;
}

/**
 * tmpl_migrate() - Move the objects tmpl_isolate() kept.
 * @s: tmpl_cache.
 * @objs: The array tmpl_isolate() filtered; %NULL entries are skipped.
 * @nr: Number of entries in @objs.
 * @node: The node to allocate the new copies on.
 * @private: What tmpl_isolate() returned (unused).
 *
 * For each object: allocate the copy with kmem_cache_alloc_node(@s, ...,
 * @node) - SLUB never hands out an object of the slab being emptied, so the
 * copy lands elsewhere - index it, copy the payload, redirect the one
 * reference (the list linkage) and free the old object in its constructed
 * state.  If the copy cannot be allocated or indexed, the old object stays
 * as it is: nothing is lost, its slab just stays.  Releases tmpl_lock.
 *
 * Context: Process context, may sleep; tmpl_lock held (by tmpl_isolate()).
 * The allocation may enter reclaim: a shrinker that takes tmpl_lock would
 * have to use mutex_trylock().
 */
static void tmpl_migrate(struct kmem_cache *s, void **objs, int nr, int node,
			 void *private)
	__releases(&tmpl_lock)
{
	int i;

	lockdep_assert_held(&tmpl_lock);
	for (i = 0; i < nr; i++) {
		struct tmpl_object *old = objs[i], *new;

		if (!old)
			continue;
		new = kmem_cache_alloc_node(s, GFP_KERNEL, node);
		if (!new) {
			tmpl_migrate_failed++;
			continue;
		}
		if (xa_err(xa_store(&tmpl_live, tmpl_key(new), new, GFP_KERNEL))) {
			kmem_cache_free(s, new);	/* still constructed */
			tmpl_migrate_failed++;
			continue;
		}
		new->id = old->id;
		memcpy(new->payload, old->payload, sizeof(new->payload));
		list_replace(&old->list, &new->list);

		xa_erase(&tmpl_live, tmpl_key(old));
		tmpl_ctor(old);
		kmem_cache_free(s, old);
		tmpl_moved++;
	}
	mutex_unlock(&tmpl_lock);
}

/*
 * Caller holds tmpl_lock.  Objects are added at the tail and a move puts
 * the copy in the original's place, so the ids on the list only grow: an
 * id out of order is an object that a move lost or duplicated.
 */
static int tmpl_verify(void)
{
	unsigned long count = 0, prev = 0;
	struct tmpl_object *obj;
	int i;

	list_for_each_entry(obj, &tmpl_objects, list) {
		if (obj->id <= prev || obj->id >= tmpl_next_id) {
			pr_err("object %lu after %lu: lost or duplicated\n",
			       obj->id, prev);
			return -EBADMSG;
		}
		prev = obj->id;
		for (i = 0; i < sizeof(obj->payload); i++) {
			if (obj->payload[i] != tmpl_byte(obj->id, i)) {
				pr_err("object %lu: payload corrupted\n", obj->id);
				return -EBADMSG;
			}
		}
		if (xa_load(&tmpl_live, tmpl_key(obj)) != obj) {
			pr_err("object %lu: not in the index\n", obj->id);
			return -EBADMSG;
		}
		count++;
	}
	if (count != tmpl_nr) {
		pr_err("%lu objects on the list, %lu expected\n", count, tmpl_nr);
		return -EBADMSG;
	}
	return 0;
}

static int tmpl_command(char *line)
{
	char *cmd = strsep(&line, " "), *arg = strsep(&line, " ");
	struct tmpl_object *obj, *tmp;
	unsigned long n, i = 0;
	int node = NUMA_NO_NODE, err = 0;

	if (!strcmp(cmd, "shrink") && !arg) {
		/* Not under tmpl_lock: the callbacks take it */
		kmem_cache_shrink(tmpl_cache);
		return 0;
	}
	if (!strcmp(cmd, "verify") && !arg) {
		mutex_lock(&tmpl_lock);
		err = tmpl_verify();
		mutex_unlock(&tmpl_lock);
		return err;
	}
	if (!strcmp(cmd, "free-all") && !arg) {
		mutex_lock(&tmpl_lock);
		list_for_each_entry_safe(obj, tmp, &tmpl_objects, list)
			tmpl_free_one(obj);
		mutex_unlock(&tmpl_lock);
		return 0;
	}
	if (!arg || kstrtoul(arg, 10, &n) || !n)
		return -EINVAL;
	if (!strcmp(cmd, "alloc")) {
		arg = strsep(&line, " ");
		if (arg && (kstrtoint(arg, 10, &node) || node < 0 ||
			    node >= nr_node_ids || !node_online(node)))
			return -EINVAL;
		if (line)
			return -EINVAL;
		mutex_lock(&tmpl_lock);
		for (i = 0; i < n && !err; i++)
			err = tmpl_alloc_one(node);
		mutex_unlock(&tmpl_lock);
		return err;
	}
	if (!strcmp(cmd, "keep-every") && !line) {
		mutex_lock(&tmpl_lock);
		list_for_each_entry_safe(obj, tmp, &tmpl_objects, list)
			if (i++ % n)
				tmpl_free_one(obj);
		mutex_unlock(&tmpl_lock);
		return 0;
	}
	return -EINVAL;
}

static ssize_t tmpl_control_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *off)
{
	char buf[64];
	int err;

	if (*off || !len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	/* A NUL inside the write would cut the command short, not end it */
	if (strlen(buf) != len)
		return -EINVAL;
	err = tmpl_command(strim(buf));
	return err ?: len;
}

static ssize_t tmpl_control_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *off)
{
	struct tmpl_object *obj;
	unsigned long kfence = 0;
	char buf[192];
	int n;

	mutex_lock(&tmpl_lock);
	list_for_each_entry(obj, &tmpl_objects, list)
		kfence += is_kfence_address(obj);
	n = scnprintf(buf, sizeof(buf),
		      "objects %lu\nmoved %lu\nmigrate_failed %lu\nisolate_skipped %lu\nkfence %lu\n",
		      tmpl_nr, tmpl_moved, tmpl_migrate_failed, tmpl_skipped,
		      kfence);
	mutex_unlock(&tmpl_lock);
	return simple_read_from_buffer(ubuf, len, off, buf, n);
}

static const struct file_operations tmpl_control_fops = {
	.owner = THIS_MODULE,
	.read = tmpl_control_read,
	.write = tmpl_control_write,
	.llseek = default_llseek,
};

static int __init tmpl_init(void)
{
	struct kmem_cache_args args = {
		.ctor = tmpl_ctor,
		.isolate = tmpl_isolate,
		.migrate = tmpl_migrate,
	};

	/* Fails if the kernel lacks CONFIG_SLAB_MOVABLE_OBJECTS */
	tmpl_cache = kmem_cache_create("smo_template", sizeof(struct tmpl_object),
				       &args, 0);
	if (!tmpl_cache)
		return -ENOMEM;
	tmpl_dir = debugfs_create_dir("smo_template", NULL);
	debugfs_create_file("control", 0600, tmpl_dir, NULL, &tmpl_control_fops);
	return 0;
}
module_init(tmpl_init);

static void __exit tmpl_exit(void)
{
	struct tmpl_object *obj, *tmp;

	debugfs_remove_recursive(tmpl_dir);
	/*
	 * Turn mobility off first: this returns once no defragmentation pass
	 * calls the callbacks any more, which are about to go away with the
	 * module.
	 */
	kmem_cache_setup_mobility(tmpl_cache, NULL, NULL);
	mutex_lock(&tmpl_lock);
	list_for_each_entry_safe(obj, tmp, &tmpl_objects, list)
		tmpl_free_one(obj);
	mutex_unlock(&tmpl_lock);
	kmem_cache_destroy(tmpl_cache);
	xa_destroy(&tmpl_live);
}
module_exit(tmpl_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Template of a slab cache with movable objects");
